import type { Job, JobSummary } from '@invest/platform';
import { type IssDividend, parseIssDividends } from '../market-data/iss-dividends.parser.js';
import type { ScreenerJobDeps } from './job-deps.js';
import { RunReport, failureReason } from './run-report.js';

export const SHARES_DIVIDENDS_JOB = 'update:shares-dividends';
/** After this many provider failures in a row the run stops asking (the provider is down or blocking us). */
const MAX_CONSECUTIVE_FAILURES = 5;
/** Pages of one security's dividends followed at most (ISS pages by 100; nobody has 1000 payments). */
const MAX_PAGES = 10;

function parseArgs(args: readonly string[]): { only?: string[] } {
  if (args.length === 0) return {};
  if (args[0] === '--only' && args[1] && args.length === 2) return { only: args[1].split(',').map((s) => s.trim().toUpperCase()).filter(Boolean) };
  throw new Error(`${SHARES_DIVIDENDS_JOB}: unknown option(s) ${args.join(' ')} (usage: ${SHARES_DIVIDENDS_JOB} [--only SBER,GAZP])`);
}

/**
 * `update:shares-dividends` (daily 02:15 MARKET_TZ, after the stats): each share's dividends from
 * `/iss/securities/{SECID}/dividends.json`, one request at a time (the client throttles). A response without
 * the `dividends` block, or a list whose cursor pages were not all read, means "unknown": the share's records
 * stay as they are and it is not marked synced.
 * A known list replaces the share's MOEX (and demo) records: SUR is RUB, null/0 values are dropped, duplicates
 * are one payment. The share is then marked synced (its yield becomes a number, possibly 0).
 */
export function createSharesDividendsJob(deps: ScreenerJobDeps): Job {
  return {
    name: SHARES_DIVIDENDS_JOB,
    schedule: { dailyAt: '02:15', timeZone: deps.marketTz },
    async run(args: string[]): Promise<JobSummary> {
      const { only } = parseArgs(args);
      const report = new RunReport();
      const shares = await deps.db.query<{ id: string; ticker: string }>(
        `select a.id::text, a.ticker from assets a join shares s on s.asset_id = a.id
         where a.type = 'share' ${only ? 'and a.ticker = any($1::text[])' : ''} order by a.ticker`,
        only ? [only] : [],
      );
      let unknown = 0;
      let consecutiveFailures = 0;
      for (const [i, share] of shares.entries()) {
        if (deps.signal?.aborted) break;
        report.attempt();
        let list: DividendList;
        try {
          list = await fetchAll(deps, share.ticker);
          consecutiveFailures = 0;
        } catch (err) {
          report.blockFailed(`dividends ${share.ticker}`, err);
          if (++consecutiveFailures >= MAX_CONSECUTIVE_FAILURES) {
            const rest = shares.length - i - 1;
            report.skipped += rest;
            report.note(`stopped after ${MAX_CONSECUTIVE_FAILURES} failures in a row (${failureReason(err)}); ${rest} share(s) not asked`);
            deps.logger.warn({ job: SHARES_DIVIDENDS_JOB, rest }, 'dividends: provider keeps failing; stopping this run');
            break;
          }
          continue;
        }
        if (!list.known) {
          unknown++;
          report.skipped++;
          report.note(`dividends ${share.ticker}: ${list.reason} (unknown); previous records kept`);
          deps.logger.warn({ job: SHARES_DIVIDENDS_JOB, ticker: share.ticker, reason: list.reason }, 'dividends: list unknown; previous records kept');
          continue;
        }
        const { dividends } = list;
        report.fetched += dividends.length;
        try {
          if (await replaceDividends(deps, share.id, dividends)) report.changed++;
        } catch (err) {
          // One share's write failing (its transaction is rolled back: records and sync mark as they were)
          // must not end the run for the others. Not a provider failure, so it does not count towards the stop.
          report.blockFailed(`dividends ${share.ticker}`, err);
          deps.logger.error({ job: SHARES_DIVIDENDS_JOB, ticker: share.ticker, err }, 'dividends: storing failed; share skipped');
        }
      }
      return report.finish(SHARES_DIVIDENDS_JOB, { shares: shares.length, unknown });
    },
  };
}

/** One security's whole dividends list, or why it is not known (its stored records must then stay). */
type DividendList = { known: true; dividends: IssDividend[] } | { known: false; reason: string };

/**
 * Every page of one security's dividends. Only a list read to its end replaces the stored records (a part of
 * it would delete the payments on the pages not read), so it is unknown when the answer has no dividends block,
 * when the cursor still promises pages after MAX_PAGES, or when the cursor does not move (the same page again:
 * asking more would loop, and what was read is not the whole list the cursor claims).
 */
async function fetchAll(deps: ScreenerJobDeps, secid: string): Promise<DividendList> {
  const all: IssDividend[] = [];
  let start = 0;
  let complete = false;
  for (let page = 0; page < MAX_PAGES; page++) {
    const parsed = parseIssDividends(await deps.moex.dividends(secid, start, deps.signal), secid);
    if (!parsed.known) return { known: false, reason: 'no "dividends" block' };
    all.push(...parsed.dividends);
    if (parsed.nextStart === null) {
      complete = true;
      break;
    }
    if (parsed.nextStart <= start) return { known: false, reason: `the dividends cursor does not advance (start ${start} again)` };
    start = parsed.nextStart;
  }
  if (!complete) return { known: false, reason: `the dividends cursor promises more than ${MAX_PAGES} pages (list incomplete)` };
  const seen = new Set<string>();
  return {
    known: true,
    dividends: all.filter((d) => {
      const key = `${d.recordDate}|${d.currency}|${d.value.toFixed(6)}`;
      return !seen.has(key) && seen.add(key);
    }),
  };
}

/** Replaces the share's provider records with the known list and marks it synced; true when a row changed. */
async function replaceDividends(deps: ScreenerJobDeps, assetId: string, dividends: readonly IssDividend[]): Promise<boolean> {
  const rows = JSON.stringify(dividends.map((d) => ({ record_date: d.recordDate, value: d.value, currency: d.currency })));
  return deps.db.transaction(async (tx) => {
    const removed = await tx.query(
      `delete from dividends d
       where d.asset_id = $1 and d.source in ('moex', 'demo')
         and not exists (select 1 from jsonb_to_recordset($2::jsonb) as x(record_date date, value numeric, currency text)
                         where x.record_date = d.record_date and x.value = d.value and x.currency = d.currency)
       returning 1`,
      [assetId, rows],
    );
    // `distinct` on the table's key (as the database compares it): the list never names one row twice, so the
    // upsert cannot hit "ON CONFLICT DO UPDATE command cannot affect row a second time".
    const added = await tx.query(
      `insert into dividends (asset_id, record_date, value, currency, source)
       select distinct $1::bigint, x.record_date, x.value, x.currency, 'moex'
       from jsonb_to_recordset($2::jsonb) as x(record_date date, value numeric, currency text)
       on conflict (asset_id, record_date, value, currency) do update set source = 'moex'
         where dividends.source is distinct from 'moex'
       returning 1`,
      [assetId, rows],
    );
    await tx.query('update shares set dividends_synced_at = now() where asset_id = $1', [assetId]);
    return removed.length + added.length > 0;
  });
}
