import type { AssetRef, PortfolioStatistics } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import { iso, num } from '../common/sql-values.js';
import { type PortfolioState, reviveState } from './statistics.types.js';

type Row = Record<string, unknown>;

/**
 * Runs a cache write; a portfolio deleted concurrently (its delete commits while the row's foreign key is
 * checked) is not an error: there is nothing left to cache for, like the `where exists` guard's no-op.
 */
async function cacheWrite(write: () => Promise<Row[]>): Promise<string> {
  try {
    const rows = await write();
    return rows[0] ? iso(rows[0].computed_at) : new Date().toISOString();
  } catch (err) {
    if ((err as { code?: unknown }).code === '23503') return new Date().toISOString();
    throw err;
  }
}

/** A portfolio as the statistics read sees it, with its hydrated cache row if that is still valid. */
export interface StatisticsProbe {
  portfolioId: number;
  currencyCode: string;
  statsVersion: number;
  hydrated?: { body: PortfolioStatistics; computedAt: string; stateComputedAt: string };
}

/**
 * One statement: the user's portfolio and its hydrated row, valid only when it is younger than its
 * expiry, of the current statistics version, and no asset in it has a newer price than it was built with.
 * Undefined when the portfolio is not the user's.
 */
export async function probeStatistics(db: SqlClient, userId: string, portfolioId: number): Promise<StatisticsProbe | undefined> {
  const [row] = await db.query<Row>(
    `select p.id::text, p.currency_code, p.stats_version::text,
       h.body, h.computed_at, h.state_computed_at
     from portfolios p
     left join statistics_hydrated h on h.portfolio_id = p.id
       and h.stats_version = p.stats_version
       and h.expires_at > now()
       and h.prices_version >= (
         select coalesce(max(a.price_seq), 0) from unnest(h.asset_types, h.asset_ids) as u(t, i)
         join assets a on a.asset_type = u.t and a.asset_id = u.i)
     where p.id = $1 and p.user_id = $2`,
    [portfolioId, userId],
  );
  if (!row) return undefined;
  return {
    portfolioId: num(row.id),
    currencyCode: String(row.currency_code),
    statsVersion: num(row.stats_version),
    ...(row.body
      ? { hydrated: { body: row.body as PortfolioStatistics, computedAt: iso(row.computed_at), stateComputedAt: iso(row.state_computed_at) } }
      : {}),
  };
}

/**
 * The state cache row of this version, if it has not expired. `withoutCashFlows` leaves the cash flows (one per deal
 * date, thousands on a long history) in the database for a reader that needs only the positions (holdings).
 */
export async function loadState(
  db: SqlClient,
  portfolioId: number,
  statsVersion: number,
  opts: { withoutCashFlows?: boolean } = {},
): Promise<{ state: PortfolioState; computedAt: string } | undefined> {
  const [row] = await db.query<Row>(
    `select ${opts.withoutCashFlows ? `state || '{"cashFlows": []}'::jsonb as state` : 'state'}, computed_at
     from statistics_state where portfolio_id = $1 and stats_version = $2 and expires_at > now()`,
    [portfolioId, statsVersion],
  );
  const state = row ? reviveState(row.state) : undefined;
  if (!row || !state) return undefined;
  return { state, computedAt: iso(row.computed_at) };
}

/**
 * Stores a state. A slower reader that aggregated an older version never overwrites a newer one; the
 * row of a version a deal change has since replaced is simply never matched again.
 */
export async function saveState(db: SqlClient, portfolioId: number, statsVersion: number, state: PortfolioState, ttlSeconds: number): Promise<string> {
  return cacheWrite(() =>
    db.query<Row>(
      `insert into statistics_state (portfolio_id, stats_version, state, expires_at)
       select $1, $2, $3::jsonb, now() + make_interval(secs => $4)
       where exists (select 1 from portfolios where id = $1)
       on conflict (portfolio_id) do update set stats_version = excluded.stats_version, state = excluded.state,
         computed_at = now(), expires_at = excluded.expires_at
       where statistics_state.stats_version <= excluded.stats_version
       returning computed_at`,
      [portfolioId, statsVersion, JSON.stringify(state), ttlSeconds],
    ),
  );
}

export async function saveHydrated(
  db: SqlClient,
  h: {
    portfolioId: number;
    statsVersion: number;
    pricesVersion: number;
    assets: readonly AssetRef[];
    body: PortfolioStatistics;
    stateComputedAt: string;
    ttlSeconds: number;
  },
): Promise<string> {
  return cacheWrite(() =>
    db.query<Row>(
      `insert into statistics_hydrated (portfolio_id, stats_version, prices_version, asset_types, asset_ids, body, state_computed_at, expires_at)
       select $1, $2, $3, $4::text[], $5::bigint[], $6::jsonb, $7::timestamptz, now() + make_interval(secs => $8)
       where exists (select 1 from portfolios where id = $1)
       on conflict (portfolio_id) do update set stats_version = excluded.stats_version, prices_version = excluded.prices_version,
         asset_types = excluded.asset_types, asset_ids = excluded.asset_ids, body = excluded.body,
         state_computed_at = excluded.state_computed_at, computed_at = now(), expires_at = excluded.expires_at
       where (statistics_hydrated.stats_version, statistics_hydrated.prices_version) <= (excluded.stats_version, excluded.prices_version)
       returning computed_at`,
      [
        h.portfolioId,
        h.statsVersion,
        h.pricesVersion,
        h.assets.map((a) => a.type),
        h.assets.map((a) => a.id),
        JSON.stringify(h.body),
        h.stateComputedAt,
        h.ttlSeconds,
      ],
    ),
  );
}
