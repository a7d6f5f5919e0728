import type { SqlClient } from '../db/database.js';
import { lockKey } from '../jobs/advisory-lock.js';
import { ServiceError } from '../rpc/service-error.js';

/**
 * Serialises the creates of one owner (`portfolios:user:42`) until the transaction ends: a transaction-level
 * advisory lock, for quotas whose owner has no row to lock.
 */
export async function lockQuotaOwner(tx: SqlClient, owner: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1::bigint)', [lockKey(`quota:${owner}`).toString()]);
}

export interface QuotaCheck {
  limit: number;
  /** `select 1 from ... where ...`: one row per counted thing; counting stops at `limit`. */
  rowsSql: string;
  params: readonly unknown[];
  /** The 422 field (`portfolios`). */
  field: string;
  /** The message, naming the limit (`You can have at most 50 portfolios.`). */
  message: string;
}

/**
 * 422 when the owner already has `limit` things. Run it under the lock that serialises the owner's creates
 * (a row lock, or lockQuotaOwner), in the create's transaction, so concurrent creates cannot overshoot.
 * The count reads at most `limit` rows.
 */
export async function requireBelowQuota(tx: SqlClient, q: QuotaCheck): Promise<void> {
  const [row] = await tx.query<{ n: number }>(`select count(*)::int as n from (${q.rowsSql} limit ${Number(q.limit)}) counted`, q.params);
  if ((row?.n ?? 0) >= q.limit) throw ServiceError.validation({ [q.field]: [q.message] });
}
