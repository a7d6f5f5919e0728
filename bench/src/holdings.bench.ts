/**
 * `npm run bench -- holdings [--seconds N] [--positions N] [--deals N]`: the holdings of one portfolio (default 200
 * positions, 10,000 deals; the statistics benchmark's seed), read three ways side by side in the same run:
 *   holdings - HoldingsService.get as served: the state cache (price-independent aggregation) plus current prices;
 *   computed - the same without the state cache: every deal loaded and aggregated, the state written;
 *   naive    - a naive recomputation: every deal and price loaded, and each position replayed from a scan of all
 *              the deals (positions x deals), with no shared aggregation.
 * In-process against a real Postgres (own database), so the figures are the service's work without NATS. The naive
 * answer is checked equal to the service's, so the comparison is of the same result.
 */
import { Decimal, createLogger, openDatabase } from '@invest/platform';
import { testPostgresUrl, uniqueName } from '@invest/platform/testing/index';
import { loadDealsForStatistics } from '@invest/portfolios/deals/deal.repository';
import { computeHoldings } from '@invest/portfolios/holdings/holdings';
import { HoldingsService } from '@invest/portfolios/holdings/holdings.service';
import { migrations } from '@invest/portfolios/migrations/index';
import { findAssets } from '@invest/portfolios/prices/asset-catalog.repository';
import { aggregateDeals } from '@invest/portfolios/statistics/aggregate-deals';
import { assetKey, type DealInput } from '@invest/portfolios/statistics/statistics.types';
import pg from 'pg';
import { parseOptions } from './support/args.js';
import { percentile } from './support/percentile.js';
import { seed, USER } from './statistics.bench.js';

const TARGET_MS = 50;

interface Result {
  path: string;
  runs: number;
  p50: number;
  p99: number;
  mean: number;
}

async function measure(path: string, seconds: number, before: () => Promise<void>, op: () => Promise<unknown>): Promise<Result> {
  for (let i = 0; i < 3; i++) {
    await before();
    await op();
  }
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until || times.length < 10) {
    await before();
    const t0 = performance.now();
    await op();
    times.push(performance.now() - t0);
  }
  return { path, runs: times.length, p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

/** The naive recomputation: per position, a scan of every deal, aggregated on its own. */
async function naiveHoldings(db: Awaited<ReturnType<typeof openDatabase>>, portfolioId: number) {
  const loaded = (await loadDealsForStatistics(db, portfolioId))!;
  const assets = [...new Map(loaded.deals.map((d) => [assetKey(d.asset), d.asset])).values()];
  const quotes = await findAssets(db, assets);
  const perAsset = assets.map((a) => aggregateDeals(loaded.deals.filter((d: DealInput) => assetKey(d.asset) === assetKey(a))));
  const state = { ...perAsset[0]!, assets: perAsset.flatMap((s) => s.assets), dealsCount: loaded.deals.length };
  return computeHoldings({ state, quotes, currency: loaded.currencyCode });
}

export async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, { seconds: 3, positions: 200, deals: 10_000 }, (v) => Number.isFinite(v) && v > 0);
  const name = uniqueName('bench_holdings');
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const db = await openDatabase({ url: testPostgresUrl(name), migrations, logger: createLogger('bench', 'silent') });
  try {
    const portfolioId = await seed(db, o);
    const [{ n } = { n: '0' }] = await db.query<{ n: string }>('select count(*)::text as n from deals');
    const holdings = new HoldingsService(db, createLogger('bench', 'silent'));
    const get = () => holdings.get(USER, { portfolio_id: portfolioId });
    const dropState = async () => void (await db.query('delete from statistics_state where portfolio_id = $1', [portfolioId]));

    // The same answer three ways (the naive one's totals exactly; its rows in the same order).
    const served = (await get()).data;
    const naive = await naiveHoldings(db, portfolioId);
    if (JSON.stringify(naive) !== JSON.stringify(served)) throw new Error('the naive recomputation answers differently from the service');
    const open = served.rows.filter((r) => r.open).length;
    if (Decimal.of(served.totals.value).sign() <= 0) throw new Error('the seeded portfolio has no value');

    console.log(
      `portfolio with ${served.rows.length} positions (${open} open) and ${n} deals; ${o.seconds} s per path (in-process, Postgres ${new URL(testPostgresUrl()).host})`,
    );
    const results = [
      await measure('holdings', o.seconds, async () => undefined, get),
      await measure('computed', o.seconds, dropState, get),
      await measure('naive', o.seconds, async () => undefined, () => naiveHoldings(db, portfolioId)),
    ];
    const pad = (s: string, w: number) => s.padStart(w);
    console.log(`${'path'.padEnd(10)}${pad('p50 ms', 10)}${pad('p99 ms', 10)}${pad('mean ms', 10)}${pad('runs', 8)}${pad('vs naive', 12)}`);
    const naiveMean = results[2]!.mean;
    for (const r of results) {
      console.log(`${r.path.padEnd(10)}${pad(r.p50.toFixed(2), 10)}${pad(r.p99.toFixed(2), 10)}${pad(r.mean.toFixed(2), 10)}${pad(String(r.runs), 8)}${pad(`${(naiveMean / r.mean).toFixed(1)}x`, 12)}`);
    }
    const h = results[0]!;
    console.log(`target: holdings for ${o.positions} positions under ${TARGET_MS} ms: p99 ${h.p99.toFixed(2)} ms, ${h.p99 < TARGET_MS ? 'met' : 'NOT met'}`);
  } finally {
    await db.close();
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}
