import type { Job, JobSummary } from '@invest/platform';
import { MOEX_MARKETS, parseIssMarketStats } from '../market-data/iss-market.parser.js';
import type { ScreenerJobDeps } from './job-deps.js';
import { RunReport } from './run-report.js';

export const SHARES_MARKET_STATS_JOB = 'update:shares-market-stats';

/**
 * `update:shares-market-stats` (daily 01:45 MARKET_TZ): market_cap = ISSUECAPITALIZATION and trading_volume =
 * VALTODAY from the marketdata block of each main share board (TQBR, TQPI), keyed by SECID, taking only the
 * row of the board the share is listed on. A null or absent value keeps the stored one; a board that fails
 * is skipped with its reason.
 */
export function createSharesMarketStatsJob(deps: ScreenerJobDeps): Job {
  return {
    name: SHARES_MARKET_STATS_JOB,
    schedule: { dailyAt: '01:45', timeZone: deps.marketTz },
    async run(args: string[]): Promise<JobSummary> {
      if (args.length) throw new Error(`${SHARES_MARKET_STATS_JOB}: takes no options (got ${args.join(' ')})`);
      const report = new RunReport();
      const spec = MOEX_MARKETS.shares;
      for (const board of spec.boards ?? []) {
        const label = `shares ${board}`;
        report.attempt();
        let stats;
        try {
          stats = parseIssMarketStats(await deps.moex.market(spec, board, undefined, deps.signal), board);
        } catch (err) {
          const reason = report.blockFailed(label, err);
          deps.logger.warn({ job: SHARES_MARKET_STATS_JOB, board, reason }, `${label}: provider block skipped; last values kept`);
          continue;
        }
        report.fetched += stats.length;
        const rows = stats.map((s) => ({ secid: s.secid, market_cap: s.marketCap ?? null, trading_volume: s.tradingVolume ?? null }));
        const [result] = await deps.db.query<{ matched: number; changed: number }>(
          `with x as (
             select * from jsonb_to_recordset($1::jsonb) as x(secid text, market_cap numeric, trading_volume numeric)
           ), target as (
             select s.asset_id, x.market_cap, x.trading_volume from x
             join assets a on a.type = 'share' and a.ticker = x.secid and a.board = $2
             join shares s on s.asset_id = a.id
           ), upd as (
             update shares s set market_cap = coalesce(t.market_cap, s.market_cap), trading_volume = coalesce(t.trading_volume, s.trading_volume)
             from target t
             where s.asset_id = t.asset_id
               and (s.market_cap is distinct from coalesce(t.market_cap, s.market_cap) or s.trading_volume is distinct from coalesce(t.trading_volume, s.trading_volume))
             returning 1
           )
           select (select count(*)::int from target) as matched, (select count(*)::int from upd) as changed`,
          [JSON.stringify(rows), board],
        );
        report.changed += result?.changed ?? 0;
        const unmatched = stats.length - (result?.matched ?? 0);
        // Rows of securities that are not shares on this board (fund units, unknown listings) are not ours.
        if (unmatched > 0) report.note(`${label}: ${unmatched} row(s) are not shares listed on ${board} here (not updated)`);
      }
      return report.finish(SHARES_MARKET_STATS_JOB);
    },
  };
}
