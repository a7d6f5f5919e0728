import { createHash } from 'node:crypto';
import { ErrorCode } from '@invest/contracts';
import { deadlinePassed } from '../context/deadline.js';
import type { Db, SqlClient } from '../db/database.js';
import { ServiceError } from '../rpc/service-error.js';

/** How long a key is remembered: a repeat after that is a new request (IETF draft: the server decides; 24 h is common). */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 3600;
/** Expired rows removed by one keyed create, beside its own key's (keeps the table bounded without a job). */
export const IDEMPOTENCY_SWEEP_LIMIT = 100;
/** The field a key problem is reported under (422 `errors`). */
export const IDEMPOTENCY_KEY_FIELD = 'Idempotency-Key';

export interface IdempotencyRequest {
  /** The operation the key belongs to (the NATS subject of the create); one key space per scope and user. */
  scope: string;
  userId: string;
  /** The client's key; undefined = no header: the create runs as if this helper were not there. */
  key: string | undefined;
  /** requestFingerprint(subject, payload): a repeat must carry the same request. */
  fingerprint: string;
}

export interface IdempotencyOptions {
  /** The status the stored response is answered with (default 201). */
  status?: number;
  ttlSeconds?: number;
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

const MAX_CLAIM_ATTEMPTS = 3;

/**
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
export async function withIdempotency<T>(tx: SqlClient, req: IdempotencyRequest, create: () => Promise<T>, opts: IdempotencyOptions = {}): Promise<T> {
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

function keyReused(): ServiceError {
  return ServiceError.validation({ [IDEMPOTENCY_KEY_FIELD]: [`This ${IDEMPOTENCY_KEY_FIELD} was already used with a different request.`] });
}
