import type { Portfolio } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import { iso, num } from '../common/sql-values.js';
import { OPEN_QUANTITY } from '../deals/deal.repository.js';

type Row = Record<string, unknown>;

const SELECT = `select p.id::text, p.name, p.currency_code, p.created_at, p.updated_at,
  (select count(*) from deals d where d.portfolio_id = p.id)::text as deals_count,
  (select count(*) from (
     select 1 from deals d where d.portfolio_id = p.id group by d.asset_type, d.asset_id
     having ${OPEN_QUANTITY} > 0) open)::text as positions_count
  from portfolios p`;

function toPortfolio(r: Row): Portfolio {
  return {
    id: num(r.id),
    name: String(r.name),
    currency_code: String(r.currency_code),
    positions_count: num(r.positions_count),
    deals_count: num(r.deals_count),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export async function listPortfolios(db: SqlClient, userId: string): Promise<Portfolio[]> {
  const rows = await db.query<Row>(`${SELECT} where p.user_id = $1 order by p.id`, [userId]);
  return rows.map(toPortfolio);
}

/** The user's portfolio, or undefined when there is none with that id or it belongs to someone else. */
export async function findPortfolio(db: SqlClient, userId: string, id: number): Promise<Portfolio | undefined> {
  const [row] = await db.query<Row>(`${SELECT} where p.id = $1 and p.user_id = $2`, [id, userId]);
  return row ? toPortfolio(row) : undefined;
}

export interface LockedPortfolio {
  id: number;
  userId: string;
  currencyCode: string;
  statsVersion: number;
}

/**
 * Locks the user's portfolio row for the rest of the transaction (deal changes of one portfolio run one
 * at a time, so the oversell check sees every committed deal).
 */
export async function lockPortfolio(tx: SqlClient, userId: string, id: number): Promise<LockedPortfolio | undefined> {
  const [row] = await tx.query<Row>(
    'select id::text, user_id, currency_code, stats_version::text from portfolios where id = $1 and user_id = $2 for update',
    [id, userId],
  );
  return row ? { id: num(row.id), userId: String(row.user_id), currencyCode: String(row.currency_code), statsVersion: num(row.stats_version) } : undefined;
}

/**
 * Marks the portfolio's statistics stale: a new version (cache rows of older versions never match again)
 * and the cache rows themselves removed, in the caller's transaction.
 */
export async function invalidateStatistics(tx: SqlClient, portfolioId: number): Promise<void> {
  await tx.query('update portfolios set stats_version = stats_version + 1, updated_at = now() where id = $1', [portfolioId]);
  await tx.query('delete from statistics_hydrated where portfolio_id = $1', [portfolioId]);
  await tx.query('delete from statistics_state where portfolio_id = $1', [portfolioId]);
}
