import { createHash } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';

/** Stable 64-bit lock key for a job name. */
export function lockKey(name: string): bigint {
  return createHash('sha256').update(name).digest().readBigInt64BE(0);
}

/**
 * Runs `fn` only if no other instance holds the lock `name`; returns `{ ran: false }` otherwise.
 * The lock is held by one pinned connection, so a crash releases it with the connection.
 */
export async function withAdvisoryLock<T>(db: Db, name: string, fn: () => Promise<T>): Promise<{ ran: true; result: T } | { ran: false }> {
  const conn = await db.orm.em.getConnection().getClient().connection();
  // A dedicated session-level lock on one pinned connection; released in finally.
  return conn.execute(async (kdb) => {
    const key = lockKey(name).toString();
    const got = await kdb.executeQuery<{ ok: boolean }>(CompiledQuery.raw('select pg_try_advisory_lock($1::bigint) as ok', [key]));
    if (!got.rows[0]?.ok) return { ran: false as const };
    try {
      return { ran: true as const, result: await fn() };
    } finally {
      await kdb.executeQuery(CompiledQuery.raw('select pg_advisory_unlock($1::bigint)', [key]));
    }
  });
}
