import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEADLINE_MARGIN_MS } from '../context/deadline.js';
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

/** Repeats waiting right now for the request that holds their key, per database (a gauge; tests wait on it). */
const waiting = new WeakMap<Db, number>();

/** How many requests of this process wait right now, on `db`, for the request holding their `Idempotency-Key`. */
export function idempotencyWaiting(db: Db): number {
  return waiting.get(db) ?? 0;
}

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
      // Sleeps here, not in the database: a waiting repeat holds no pool connection between its reads (40 waiting
      // repeats sleeping in Postgres had made every other query of the service ~300x slower).
      waiting.set(db, idempotencyWaiting(db) + 1);
      try {
        await sleep(Math.min(opts.pollMs ?? 50, left));
      } finally {
        waiting.set(db, idempotencyWaiting(db) - 1);
      }
    }
  }
}

function stillRunning(): ServiceError {
  return ServiceError.conflict(`A request with this ${IDEMPOTENCY_KEY_FIELD} is still being processed; retry it shortly.`, { retry_after: IDEMPOTENCY_RETRY_AFTER_SECONDS });
}

function keyReused(): ServiceError {
  return ServiceError.validation({ [IDEMPOTENCY_KEY_FIELD]: [`This ${IDEMPOTENCY_KEY_FIELD} was already used with a different request.`] });
}
