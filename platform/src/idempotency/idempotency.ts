import { createHash } from 'node:crypto';
import { ErrorCode } from '@invest/contracts';
import { DEADLINE_MARGIN_MS, deadlinePassed } from '../context/deadline.js';
import { currentContext } from '../context/request-context.js';
import type { Db, SqlClient } from '../db/database.js';
import { ServiceError } from '../rpc/service-error.js';

/** How long a key is remembered: a repeat after that is a new request (IETF draft: the server decides; 24 h is common). */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 3600;
/** Expired rows removed by one keyed create, beside its own key's (keeps the table bounded without a job). */
export const IDEMPOTENCY_SWEEP_LIMIT = 100;
/** The field a key problem is reported under (422 `errors`). */
export const IDEMPOTENCY_KEY_FIELD = 'Idempotency-Key';
/** The `Retry-After` (seconds) of the 409 a repeat gets when the request holding its key does not finish in time. */
export const IDEMPOTENCY_RETRY_AFTER_SECONDS = 1;
/** In the statement of a repeat waiting for the request that holds its key (pg_stat_activity.query). */
export const IDEMPOTENCY_WAIT_MARK = 'idempotency: waiting for the request holding the key';

export interface IdempotencyRequest {
  /** The operation the key belongs to (the NATS subject of the create); one key space per scope and user. */
  scope: string;
  userId: string;
  /** The client's key; undefined = no header: the create runs as if this helper were not there. */
  key: string | undefined;
  /** requestFingerprint(subject, payload): a repeat must carry the same request. */
  fingerprint: string;
}

/**
 * Stores a create's response with its key in the create's own transaction `tx` (call it once, last, inside that
 * transaction); returns `response`. Without a key it only returns `response`.
 */
export type FinishIdempotent<T> = (tx: SqlClient, response: T) => Promise<T>;

export interface IdempotencyOptions<T> {
  /** The status the stored response is answered with (default 201). */
  status?: number;
  ttlSeconds?: number;
  /**
   * Whether a stored response no longer stands (a chat answer that failed and was given back): then the key is
   * freed and this request runs as a new one.
   */
  outdated?: (response: T) => Promise<boolean>;
  /** How often a repeat looks whether the request holding its key has finished (default 50 ms). */
  pollMs?: number;
  /** The longest a repeat waits for that request (default 10 s; less when the repeat's own deadline comes first). */
  maxWaitMs?: number;
  /**
   * A key still running after this long was left by a process that died: the next request with it takes it over
   * (default 120 s, longer than any request's deadline).
   */
  leaseSeconds?: number;
}

/**
 * JSON with object keys sorted at every level (undefined members dropped, as JSON.stringify does), so two
 * payloads that differ only in key order have the same text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return sortKeys((value as { toJSON(): unknown }).toJSON());
  }
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortKeys(v)));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** sha256 (hex) of the subject and the canonical JSON of the request payload. */
export function requestFingerprint(subject: string, payload: unknown): string {
  return createHash('sha256').update(subject).update('\n').update(canonicalJson(payload)).digest('hex');
}


/**
 * Runs a create at most once per (scope, user, key) and answers every repeat with its first response. Call it
 * where the use case starts, before any check, with the parsed request's fingerprint:
 *
 * - no key: just `run`;
 * - a new key: claims it (a row `status 0`, committed at once), then runs `run`, which stores its response with
 *   `finish(tx, response)` in the create's own transaction: the create and its finished key commit together, so
 *   a crash never leaves a created thing whose key a repeat could run again. A `run` that throws frees the key
 *   (a 422, a 404, a timeout: the retry runs again);
 * - a key finished with the same fingerprint: its stored response; `run` does not run (no check, no second row,
 *   no second event): what the checks read (a rate, a plan, a deleted target) may have changed since;
 * - a key used with another fingerprint: 422 naming `Idempotency-Key`;
 * - a key still running (a concurrent repeat): waits for it (polls its row) and answers its response, or runs
 *   itself when it failed; when it does not finish before this request's deadline (or `maxWaitMs`), a 409
 *   `conflict` with `extra.retry_after` (the gateway's `Retry-After`). The IETF draft allows the 409 at once;
 *   waiting gives the client the answer instead in the usual case;
 * - a key running for longer than `leaseSeconds` was left by a process that died: taken over. The old run, should
 *   it still be alive, can no longer finish (`finish` checks the claim is still its own and throws).
 *
 * Keys expire after `ttlSeconds` (24 h) from their claim: an expired row of this key is deleted before the claim,
 * and each claim also deletes up to IDEMPOTENCY_SWEEP_LIMIT other expired rows (skipping locked ones), so the
 * table stays bounded without a job.
 */
export async function idempotent<T>(db: Db, req: IdempotencyRequest, run: (finish: FinishIdempotent<T>) => Promise<T>, opts: IdempotencyOptions<T> = {}): Promise<T> {
  if (req.key === undefined) return run(async (_tx, response) => response);
  const claim = await claimKey(db, req, opts);
  if ('replay' in claim) return claim.replay;
  const id = [req.scope, req.userId, req.key, claim.claimed];
  const store = `update idempotency_keys set status = $5, response = $6::json
                  where scope = $1 and user_id = $2 and key = $3 and created_at = $4::timestamptz and status = 0 returning 1`;
  const stored = (response: T) => [...id, opts.status ?? 201, JSON.stringify(response) ?? null];
  let finished = false;
  try {
    const response = await run(async (tx, response) => {
      // Not ours any more: this request outlived its lease and another took the key over (and runs the create).
      if ((await tx.query(store, stored(response))).length === 0) throw stillRunning();
      finished = true;
      return response;
    });
    // A run that returned without `finish` (it wrote nothing, or forgot): stored now, after the fact.
    if (!finished) await db.query(store, stored(response));
    return response;
  } catch (err) {
    // Frees the key unless the create committed its response (it threw after its transaction). Should this fail
    // too (the database is gone), the key is taken over after its lease.
    await db
      .query('delete from idempotency_keys where scope = $1 and user_id = $2 and key = $3 and created_at = $4::timestamptz and status = 0', id)
      .catch(() => undefined);
    throw err;
  }
}

interface KeyRow<T> {
  fingerprint: string;
  status: number;
  response: T;
  claimed: string;
  abandoned: boolean;
}

/** Claims the key (`claimed`: its claim time, which tells this claim from a later one), or the response to replay. */
async function claimKey<T>(db: Db, req: IdempotencyRequest, opts: IdempotencyOptions<T>): Promise<{ claimed: string } | { replay: T }> {
  const ttl = opts.ttlSeconds ?? IDEMPOTENCY_KEY_TTL_SECONDS;
  const id = [req.scope, req.userId, req.key];
  const deadline = currentContext()?.deadline;
  const waitUntil = Math.min(Date.now() + (opts.maxWaitMs ?? 10_000), deadline === undefined ? Infinity : deadline - DEADLINE_MARGIN_MS);
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0 && Date.now() >= waitUntil) throw stillRunning();
    const [claim] = await db.transaction(async (tx) => {
      await tx.query(`delete from idempotency_keys where scope = $1 and user_id = $2 and key = $3 and created_at <= now() - make_interval(secs => $4)`, [...id, ttl]);
      if (attempt === 0) {
        await tx.query(
          `delete from idempotency_keys where (scope, user_id, key) in (
             select scope, user_id, key from idempotency_keys where created_at <= now() - make_interval(secs => $1)
             order by created_at limit $2 for update skip locked)`,
          [ttl, IDEMPOTENCY_SWEEP_LIMIT],
        );
      }
      // clock_timestamp(), not now(): a claim made after another was freed never carries the same time.
      return tx.query<{ claimed: string }>(
        `insert into idempotency_keys (scope, user_id, key, fingerprint, created_at) values ($1, $2, $3, $4, clock_timestamp())
         on conflict (scope, user_id, key) do nothing returning created_at::text as claimed`,
        [...id, req.fingerprint],
      );
    });
    if (claim) return claim;
    // Polls until the request holding the key finishes, fails (the row is gone) or is found abandoned.
    for (;;) {
      const [row] = await db.query<KeyRow<T>>(
        `select fingerprint, status, response, created_at::text as claimed, created_at <= now() - make_interval(secs => $4) as abandoned
           from idempotency_keys where scope = $1 and user_id = $2 and key = $3`,
        [...id, opts.leaseSeconds ?? 120],
      );
      // Freed meanwhile (its run failed, or it expired): claim it.
      if (!row) break;
      const running = row.status === 0;
      if (row.fingerprint !== req.fingerprint && !(running && row.abandoned)) throw keyReused();
      if (!running) {
        if (!(await opts.outdated?.(row.response))) return { replay: row.response };
        await db.query('delete from idempotency_keys where scope = $1 and user_id = $2 and key = $3 and created_at = $4::timestamptz and status <> 0', [...id, row.claimed]);
        break;
      }
      if (row.abandoned) {
        const [taken] = await db.query<{ claimed: string }>(
          `update idempotency_keys set fingerprint = $5, created_at = clock_timestamp()
            where scope = $1 and user_id = $2 and key = $3 and created_at = $4::timestamptz and status = 0 returning created_at::text as claimed`,
          [...id, row.claimed, req.fingerprint],
        );
        if (taken) return taken;
        continue;
      }
      const left = waitUntil - Date.now();
      if (left <= 0) throw stillRunning();
      // Sleeps in the database, so that a repeat waiting for its key shows in pg_stat_activity (IDEMPOTENCY_WAIT_MARK).
      await db.query(`/* ${IDEMPOTENCY_WAIT_MARK} */ select pg_sleep($1::float8 / 1000)`, [Math.min(opts.pollMs ?? 50, left)]);
    }
  }
}

const MAX_CLAIM_ATTEMPTS = 3;

/**
 * @deprecated Use `idempotent` (removed once every create uses it).
 * Runs `create` at most once per (scope, user, key), inside the caller's transaction `tx`:
 *
 * - no key: just `create()`;
 * - a new key: claims it (insert), runs `create`, stores its result with the status; all commit or roll
 *   back together, so a failed create (a 422, a 404, a crash) leaves the key unused and can be retried;
 * - a key already stored with the same fingerprint: returns the stored response; `create` does not run
 *   (no second row, no second event);
 * - a key stored with another fingerprint: 422 naming `Idempotency-Key`;
 * - a concurrent request with the same key: its insert waits on the primary key until the first
 *   transaction ends, then replays its response (or, if it rolled back, claims the key itself). The IETF
 *   draft allows a 409 here; waiting gives the client the answer instead.
 *
 * Keys expire after `ttlSeconds` (24 h): an expired row of this key is deleted before the claim, and each
 * keyed call also deletes up to IDEMPOTENCY_SWEEP_LIMIT other expired rows (skipping locked ones), so the
 * table stays bounded without a job.
 */
export async function withIdempotency<T>(tx: SqlClient, req: IdempotencyRequest, create: () => Promise<T>, opts: Pick<IdempotencyOptions<T>, 'status' | 'ttlSeconds'> = {}): Promise<T> {
  if (req.key === undefined) return create();
  const ttl = opts.ttlSeconds ?? IDEMPOTENCY_KEY_TTL_SECONDS;
  const id = [req.scope, req.userId, req.key];
  await tx.query(
    `delete from idempotency_keys where scope = $1 and user_id = $2 and key = $3 and created_at <= now() - make_interval(secs => $4)`,
    [...id, ttl],
  );
  await tx.query(
    `delete from idempotency_keys where (scope, user_id, key) in (
       select scope, user_id, key from idempotency_keys where created_at <= now() - make_interval(secs => $1)
       order by created_at limit $2 for update skip locked)`,
    [ttl, IDEMPOTENCY_SWEEP_LIMIT],
  );
  for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
    const claimed = await tx.query(
      `insert into idempotency_keys (scope, user_id, key, fingerprint) values ($1, $2, $3, $4)
       on conflict (scope, user_id, key) do nothing returning 1`,
      [...id, req.fingerprint],
    );
    if (claimed.length > 0) {
      const result = await create();
      await tx.query('update idempotency_keys set status = $4, response = $5::json where scope = $1 and user_id = $2 and key = $3', [
        ...id,
        opts.status ?? 201,
        JSON.stringify(result) ?? null,
      ]);
      return result;
    }
    const [stored] = await tx.query<{ fingerprint: string; response: T }>(
      'select fingerprint, response from idempotency_keys where scope = $1 and user_id = $2 and key = $3',
      id,
    );
    // Gone between the insert and the select (expired and swept by another request): claim again.
    if (!stored) continue;
    if (stored.fingerprint !== req.fingerprint) throw keyReused();
    return stored.response;
  }
  throw ServiceError.conflict(`This ${IDEMPOTENCY_KEY_FIELD} is being used by another request; retry.`);
}

/**
 * The stored first response of a request repeated with a known, committed key (and the same request), for a
 * use case to answer before its checks: what they read (a rate, a plan, a deleted target) may have changed
 * since, and a retry must still get the first answer. A known key with another request is a 422. Undefined
 * without a key, or for a key not stored (or not yet committed): the use case then runs its checks and
 * `withIdempotency`, which waits for a first request still running.
 */
export async function storedIdempotentResponse<T>(db: SqlClient, req: IdempotencyRequest, ttlSeconds = IDEMPOTENCY_KEY_TTL_SECONDS): Promise<T | undefined> {
  if (req.key === undefined) return undefined;
  const [stored] = await db.query<{ fingerprint: string; response: T | null }>(
    `select fingerprint, response from idempotency_keys
      where scope = $1 and user_id = $2 and key = $3 and status <> 0 and created_at > now() - make_interval(secs => $4)`,
    [req.scope, req.userId, req.key, ttlSeconds],
  );
  if (!stored || stored.response === null) return undefined;
  if (stored.fingerprint !== req.fingerprint) throw keyReused();
  return stored.response;
}

/**
 * A keyed create's checks (run before its transaction), with the key's first answer first:
 *
 * - repeated after the first committed: `{ replayed }`, the stored response, before any check (what the checks
 *   read, a rate, a plan, a deleted target, may have changed since; a retry must still get the first answer);
 * - repeated while the first still runs, and a check fails meanwhile (the first has changed what it reads): the
 *   failure is not answered yet; this waits for the first (its key) and gives `{ replayed }` its response, or
 *   throws the failure when it rolled back (or no request held the key: it is left unused);
 * - otherwise `{ checked }`, what the checks gave; the create then runs `withIdempotency`, which still waits for
 *   a first request running.
 *
 * Without a key: the checks alone. An unavailable service, a failure past the request's deadline, or a claim
 * that fails for another reason (the database) answers the check's own error.
 */
export async function checkedUnlessReplayed<C, R>(
  db: Db,
  req: IdempotencyRequest,
  checks: () => Promise<C>,
): Promise<{ replayed: R } | { checked: C }> {
  const stored = await storedIdempotentResponse<R>(db, req);
  if (stored !== undefined) return { replayed: stored };
  try {
    return { checked: await checks() };
  } catch (err) {
    // Only an answer a first request could have caused waits for it: not an unavailable service, and not past the
    // deadline (nobody would get the first's answer, and the claim could not start).
    if (req.key === undefined || !(err instanceof ServiceError) || err.code === ErrorCode.Unavailable || deadlinePassed()) throw err;
    try {
      // Claiming the key waits for a first request holding it; the failure rolls the claim back otherwise.
      return { replayed: await db.transaction((tx) => withIdempotency<R>(tx, req, () => Promise.reject(err))) };
    } catch (claimErr) {
      // The check's failure (no first, or it rolled back) or the key used with another request stand; anything
      // else of the claim (the deadline reached while waiting, the database) does not replace the check's answer.
      if (claimErr === err || isKeyReused(claimErr)) throw claimErr;
      throw err;
    }
  }
}

function isKeyReused(err: unknown): boolean {
  return err instanceof ServiceError && err.code === ErrorCode.Validation && err.errors?.[IDEMPOTENCY_KEY_FIELD] !== undefined;
}

/**
 * Forgets a stored response so that the next request with its key runs again: for a use case whose first
 * outcome turned out not to count (a chat answer that failed and was given back). Deletes the key only while it
 * still holds `response` (a repeat that already claimed it again keeps its own).
 */
export async function forgetIdempotentResponse(db: SqlClient, req: IdempotencyRequest, response: unknown): Promise<void> {
  if (req.key === undefined) return;
  await db.query('delete from idempotency_keys where scope = $1 and user_id = $2 and key = $3 and response::text = $4', [req.scope, req.userId, req.key, JSON.stringify(response)]);
}

function stillRunning(): ServiceError {
  return ServiceError.conflict(`A request with this ${IDEMPOTENCY_KEY_FIELD} is still being processed; retry it shortly.`, { retry_after: IDEMPOTENCY_RETRY_AFTER_SECONDS });
}

function keyReused(): ServiceError {
  return ServiceError.validation({ [IDEMPOTENCY_KEY_FIELD]: [`This ${IDEMPOTENCY_KEY_FIELD} was already used with a different request.`] });
}
