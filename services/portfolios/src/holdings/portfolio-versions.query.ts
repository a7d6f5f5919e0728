import type { SqlClient } from '@invest/platform';
import { num } from '../common/sql-values.js';

/** What a holdings read needs to know of a portfolio: its currency and the statistics version of its deals. */
export interface PortfolioVersion {
  id: number;
  currencyCode: string;
  statsVersion: number;
}

/** The user's portfolios (all, or the one with `id`) with their statistics versions, by id; others' are absent. */
export async function portfolioVersions(db: SqlClient, userId: string, id?: number): Promise<PortfolioVersion[]> {
  const rows = await db.query<Record<string, unknown>>(
    `select id::text, currency_code, stats_version::text from portfolios
     where user_id = $1 and ($2::bigint is null or id = $2) order by id`,
    [userId, id ?? null],
  );
  return rows.map((r) => ({ id: num(r.id), currencyCode: String(r.currency_code), statsVersion: num(r.stats_version) }));
}
