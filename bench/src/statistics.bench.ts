/**
 * `npm run bench -- statistics [--seconds N] [--positions N] [--deals N]`: portfolio statistics for one
 * portfolio (default 200 positions, 10,000 deals), read three ways side by side:
 *   computed - no cache: load every deal, aggregate, hydrate, write both caches;
 *   state    - state cache hit: the price-independent aggregation from Postgres, hydrated with prices;
 *   hydrated - hydrated cache hit: the finished answer from Postgres.
 * Calls StatisticsService in-process against a real Postgres (own database, seeded directly), so the
 * figures are the service's work without NATS. Every call's `meta.source` is checked.
 */
import { createLogger, openDatabase } from '@invest/platform';
import { testPostgresUrl, uniqueName } from '@invest/platform/testing/index';
import { migrations } from '@invest/portfolios/migrations/index';
import { StatisticsService } from '@invest/portfolios/statistics/statistics.service';
import pg from 'pg';
import { parseOptions } from './support/args.js';

interface Options {
  seconds: number;
  positions: number;
  deals: number;
}

function parseArgs(args: string[]): Options {
  return parseOptions(args, { seconds: 3, positions: 200, deals: 10_000 }, (v) => Number.isFinite(v) && v > 0);
}

export const USER = 'bench-user';

/** A deterministic pseudo-random sequence, so every run seeds the same portfolio. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function seed(db: Awaited<ReturnType<typeof openDatabase>>, o: Options): Promise<number> {
  const rand = rng(42);
  const ids = Array.from({ length: o.positions }, (_, i) => i + 1);
  const types = ids.map((i) => (i % 10 === 0 ? 'bond' : i % 7 === 0 ? 'etf' : 'share'));
  await db.query(
    `insert into assets (asset_type, asset_id, ticker, name, currency, current_rate, price_change_24h, rate_as_of, catalog_checked_at)
     select t, i, 'T' || i, 'Asset ' || i, 'RUB', 100 + i, (i % 11) - 5, now(), now()
     from unnest($1::text[], $2::bigint[]) as u(t, i)`,
    [types, ids],
  );
  const [p] = await db.query<{ id: string }>("insert into portfolios (user_id, name, currency_code) values ($1, 'Bench', 'RUB') returning id::text", [USER]);
  const portfolioId = Number(p!.id);

  // Per asset: deals in date order; a sell never exceeds what is held, so the history is valid.
  const perAsset = Math.floor(o.deals / o.positions);
  const rows: { t: string; i: number; type: string; q: number; price: number; c: number; d: string }[] = [];
  const start = Date.parse('2015-01-01T00:00:00Z');
  for (const [k, id] of ids.entries()) {
    let held = 0;
    const count = perAsset + (k < o.deals - perAsset * o.positions ? 1 : 0);
    for (let n = 0; n < count; n++) {
      const date = new Date(start + Math.floor(((n + rand()) / count) * 3500) * 86_400_000).toISOString().slice(0, 10);
      const price = Math.round((50 + id + rand() * 40) * 100) / 100;
      const r = rand();
      let type = 'buy';
      let q = 1 + Math.floor(rand() * 20);
      if (n > 0 && r < 0.25 && held > 1) {
        type = 'sell';
        q = Math.max(1, Math.floor(held / 3));
      } else if (n > 0 && r < 0.35 && held > 0) {
        type = 'dividend';
        q = held;
      } else if (n > 0 && r < 0.4) {
        type = r < 0.38 ? 'fee' : 'tax';
        q = 1;
      }
      if (type === 'buy') held += q;
      if (type === 'sell') held -= q;
      rows.push({ t: types[k]!, i: id, type, q, price: type === 'dividend' ? 2.5 : price, c: type === 'buy' || type === 'sell' ? 1 : 0, d: date });
    }
  }
  await db.query(
    `insert into deals (portfolio_id, asset_type, asset_id, type, quantity, price, commission, date)
     select $1, t, i, ty, q, p, c, d from unnest($2::text[], $3::bigint[], $4::text[], $5::numeric[], $6::numeric[], $7::numeric[], $8::date[])
       as u(t, i, ty, q, p, c, d)`,
    [portfolioId, rows.map((r) => r.t), rows.map((r) => r.i), rows.map((r) => r.type), rows.map((r) => r.q), rows.map((r) => r.price), rows.map((r) => r.c), rows.map((r) => r.d)],
  );
  await db.query('analyze');
  return portfolioId;
}

interface Result {
  path: string;
  runs: number;
  opsPerSec: number;
  p50: number;
  p99: number;
  mean: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function measure(path: string, seconds: number, before: () => Promise<void>, op: () => Promise<string>): Promise<Result> {
  for (let i = 0; i < 3; i++) {
    await before();
    await op();
  }
  const times: number[] = [];
  let busy = 0;
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until || times.length < 10) {
    await before();
    const t0 = performance.now();
    const source = await op();
    const ms = performance.now() - t0;
    if (source !== path) throw new Error(`expected a ${path} answer, got ${source}`);
    times.push(ms);
    busy += ms;
  }
  times.sort((a, b) => a - b);
  return { path, runs: times.length, opsPerSec: (times.length * 1000) / busy, p50: percentile(times, 50), p99: percentile(times, 99), mean: busy / times.length };
}

export async function run(args: string[]): Promise<void> {
  const o = parseArgs(args);
  const name = uniqueName('bench_statistics');
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const db = await openDatabase({ url: testPostgresUrl(name), migrations, logger: createLogger('bench', 'silent') });
  try {
    const portfolioId = await seed(db, o);
    const [{ n } = { n: '0' }] = await db.query<{ n: string }>('select count(*)::text as n from deals');
    const statistics = new StatisticsService(db, createLogger('bench', 'silent'), () => new Date());
    const get = async () => (await statistics.get(USER, { portfolio_id: portfolioId })).meta.source;
    const dropHydrated = async () => void (await db.query('delete from statistics_hydrated where portfolio_id = $1', [portfolioId]));
    const dropBoth = async () => {
      await dropHydrated();
      await db.query('delete from statistics_state where portfolio_id = $1', [portfolioId]);
    };

    console.log(`portfolio with ${o.positions} positions and ${n} deals; ${o.seconds} s per path (in-process, Postgres ${new URL(testPostgresUrl()).host})`);
    const results = [
      await measure('computed', o.seconds, dropBoth, get),
      await measure('state', o.seconds, dropHydrated, get),
      await measure('hydrated', o.seconds, async () => undefined, get),
    ];
    const pad = (s: string, w: number) => s.padStart(w);
    console.log(`${'path'.padEnd(10)}${pad('ops/s', 10)}${pad('p50 ms', 10)}${pad('p99 ms', 10)}${pad('mean ms', 10)}${pad('runs', 8)}${pad('vs computed', 13)}`);
    for (const r of results) {
      console.log(
        `${r.path.padEnd(10)}${pad(r.opsPerSec.toFixed(1), 10)}${pad(r.p50.toFixed(2), 10)}${pad(r.p99.toFixed(2), 10)}${pad(r.mean.toFixed(2), 10)}${pad(String(r.runs), 8)}${pad(`${(r.opsPerSec / results[0]!.opsPerSec).toFixed(1)}x`, 13)}`,
      );
    }
  } finally {
    await db.close();
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}
