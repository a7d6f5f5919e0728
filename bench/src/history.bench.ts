/**
 * `npm run bench -- history [--seconds N] [--positions N] [--deals N] [--years N]`: a portfolio's value over time
 * (default 200 positions, 10,000 deals over the last 5 years, a close every weekday for every asset), measured side by
 * side in the same run:
 *   service  - HistoryService.get uncached (a new cache each time): the deals loaded from Postgres, the closes asked
 *              page by page of a stand-in for `screener.closes.get` answering from memory (the NATS hop is left
 *              out), valueHistory in one pass, live prices, ALL rounded to the answer;
 *   compute  - valueHistory alone on the loaded deals and closes;
 *   naive    - a naive recomputation on the same inputs: every day, the deals up to it aggregated from scratch and
 *              each position valued at its last close found by a scan (naiveValueHistory), run once.
 * The naive series is checked equal to the computed one day by day, so the comparison is of the same result.
 */
import type { AssetRef, GetClosesReply } from '@invest/contracts';
import { MAX_CLOSES_PER_REPLY, packCloses } from '@invest/contracts';
import { createLogger, Decimal, openDatabase, type RpcClient } from '@invest/platform';
import { testPostgresUrl, uniqueName } from '@invest/platform/testing/index';
import { loadDealsForStatistics } from '@invest/portfolios/deals/deal.repository';
import { HistoryCache } from '@invest/portfolios/history/history.cache';
import { HistoryService } from '@invest/portfolios/history/history.service';
import { assetCloses } from '@invest/portfolios/history/closes-pages';
import { type DailyClose, dayNumber, valueHistory } from '@invest/portfolios/history/value-history';
import { migrations } from '@invest/portfolios/migrations/index';
import { assetKey } from '@invest/portfolios/statistics/statistics.types';
import { naiveValueHistory } from '@invest/portfolios/testing/naive-value-history';
import pg from 'pg';
import { parseOptions } from './support/args.js';
import { percentile } from './support/percentile.js';

const TARGET_MS = 200;
const USER = 'bench-user';
const DAY_MS = 86_400_000;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** An asset's seeded closes: day numbers since 1970-01-01 and closes in cents. */
interface SeededCloses {
  days: number[];
  cents: number[];
}

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const closeText = (cents: number) => (cents / 100).toFixed(2);

/** Seeds the price table and the deals (a sell never exceeds what is held); returns the portfolio and the closes by asset. */
async function seed(db: Awaited<ReturnType<typeof openDatabase>>, o: { positions: number; deals: number; years: number }, today: string) {
  const rand = rng(7);
  const ids = Array.from({ length: o.positions }, (_, i) => i + 1);
  await db.query(
    `insert into assets (asset_type, asset_id, ticker, name, currency, current_rate, price_change_24h, rate_as_of, catalog_checked_at)
     select 'share', i, 'T' || i, 'Asset ' || i, 'RUB', 100 + i, 0, now(), now() from unnest($1::bigint[]) as u(i)`,
    [ids],
  );
  const [p] = await db.query<{ id: string }>("insert into portfolios (user_id, name, currency_code) values ($1, 'Bench', 'RUB') returning id::text", [USER]);
  const days = Math.round(o.years * 365.25);
  const start = Date.parse(`${today}T00:00:00Z`) - days * DAY_MS;
  const rows: { i: number; type: string; q: number; price: number; d: string }[] = [];
  const perAsset = Math.floor(o.deals / o.positions);
  for (const [k, id] of ids.entries()) {
    let held = 0;
    const count = perAsset + (k < o.deals - perAsset * o.positions ? 1 : 0);
    for (let n = 0; n < count; n++) {
      const d = new Date(start + Math.floor(((n + rand()) / count) * days) * DAY_MS).toISOString().slice(0, 10);
      const r = rand();
      let type = 'buy';
      let q = 1 + Math.floor(rand() * 20);
      if (n > 0 && r < 0.3 && held > 1) {
        type = 'sell';
        q = Math.max(1, Math.floor(held / 3));
      } else if (n > 0 && r < 0.4 && held > 0) {
        type = 'dividend';
        q = held;
      }
      if (type === 'buy') held += q;
      if (type === 'sell') held -= q;
      rows.push({ i: id, type, q, price: type === 'dividend' ? 2.5 : Math.round((50 + id + rand() * 40) * 100) / 100, d });
    }
  }
  await db.query(
    `insert into deals (portfolio_id, asset_type, asset_id, type, quantity, price, commission, date)
     select $1, 'share', i, ty, q, p, 1, d from unnest($2::bigint[], $3::text[], $4::numeric[], $5::numeric[], $6::date[]) as u(i, ty, q, p, d)`,
    [Number(p!.id), rows.map((r) => r.i), rows.map((r) => r.type), rows.map((r) => r.q), rows.map((r) => r.price), rows.map((r) => r.d)],
  );
  await db.query('analyze');
  // A close every weekday for every asset, from before the first deal to yesterday: a random walk in cents. Held as
  // day numbers and cents (three objects an asset rather than three a close), as the screener's own process would
  // hold them away from the portfolios': ~800,000 small objects here made the collector's every pass over the
  // bench's heap part of the service's time.
  const closes = new Map<number, SeededCloses>();
  for (const id of ids) {
    const list: SeededCloses = { days: [], cents: [] };
    let cents = (60 + id) * 100;
    for (let t = start - 10 * DAY_MS; t < Date.parse(`${today}T00:00:00Z`); t += DAY_MS) {
      const wd = new Date(t).getUTCDay();
      if (wd === 0 || wd === 6) continue;
      cents = Math.max(100, cents + Math.round((rand() - 0.5) * 200));
      list.days.push(t / DAY_MS);
      list.cents.push(cents);
    }
    closes.set(id, list);
  }
  return { portfolioId: Number(p!.id), closes };
}

/**
 * `screener.closes.get` answered from memory with the screener's paging (by asset id, then date). Each page is built
 * once and kept as JSON; a call decodes it, as the RPC client decodes a NATS reply, so what is timed is the
 * portfolios side.
 */
function closesStandIn(closes: Map<number, SeededCloses>): RpcClient {
  const pages = new Map<string, string>();
  const request = (_subject: string, data: { refs: AssetRef[]; from: string; to: string; after?: { asset_id: number; date: string } }) => {
    const key = JSON.stringify(data);
    let page = pages.get(key);
    if (page === undefined) pages.set(key, (page = JSON.stringify(answer(data))));
    return Promise.resolve(JSON.parse(page) as GetClosesReply);
  };
  const answer = (data: { refs: AssetRef[]; from: string; to: string; after?: { asset_id: number; date: string } }) => {
    const reply: GetClosesReply = { data: [], next_after: null, backfilling: [] };
    const [from, to] = [dayNumber(data.from), dayNumber(data.to)];
    const after = data.after && { id: data.after.asset_id, day: dayNumber(data.after.date) };
    let n = 0;
    for (const ref of [...data.refs].sort((a, b) => a.id - b.id)) {
      const { days, cents } = closes.get(ref.id) ?? { days: [], cents: [] };
      // The last close before `from`, then those up to `to`, past the previous page's last.
      const firstIn = days.findIndex((d) => d >= from);
      let i = firstIn < 0 ? days.length - 1 : Math.max(0, firstIn - 1);
      if (days[i]! > to) continue;
      const kept: number[] = [];
      for (; i < days.length && days[i]! <= to && n + kept.length < MAX_CLOSES_PER_REPLY; i++) {
        if (!after || ref.id > after.id || (ref.id === after.id && days[i]! > after.day)) kept.push(i);
      }
      if (kept.length === 0) continue;
      reply.data.push({ type: ref.type, id: ref.id, ...packCloses(kept.map((k) => dateOf(days[k]!)), kept.map((k) => closeText(cents[k]!))) });
      n += kept.length;
      if (n >= MAX_CLOSES_PER_REPLY) {
        reply.next_after = { asset_id: ref.id, date: dateOf(days[kept.at(-1)!]!) };
        break;
      }
    }
    return reply;
  };
  return { request } as unknown as RpcClient;
}

async function measure(seconds: number, op: () => Promise<unknown>) {
  for (let i = 0; i < 2; i++) await op();
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until || times.length < 10) {
    const t0 = performance.now();
    await op();
    times.push(performance.now() - t0);
  }
  return { runs: times.length, p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length };
}

export async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, { seconds: 3, positions: 200, deals: 10_000, years: 5 }, (v) => Number.isFinite(v) && v > 0);
  const name = uniqueName('bench_history');
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const logger = createLogger('bench', 'silent');
  const db = await openDatabase({ url: testPostgresUrl(name), migrations, logger });
  try {
    const today = new Date().toISOString().slice(0, 10);
    const { portfolioId, closes } = await seed(db, o, today);
    const rpc = closesStandIn(closes);
    const uncached = () => new HistoryService(db, rpc, new HistoryCache(0), logger, () => new Date()).get(USER, { portfolio_id: portfolioId, range: 'ALL' });

    // The service first, while the heap holds only what a portfolios process would (the stand-in's pages aside).
    const served = await uncached();
    const service = await measure(o.seconds, uncached);

    const loaded = (await loadDealsForStatistics(db, portfolioId))!;
    const byKey = new Map<string, DailyClose[]>(
      [...closes].map(([id, c]) => [assetKey({ type: 'share', id }), c.days.map((day, i) => ({ date: dateOf(day), close: Decimal.of(closeText(c.cents[i]!)) }))]),
    );
    const packed = new Map([...byKey].map(([key, list]) => [key, assetCloses(list)]));
    const computed = valueHistory(loaded.deals, packed, today).points;
    const closesCount = [...closes.values()].reduce((s, l) => s + l.days.length, 0);
    console.log(
      `portfolio with ${o.positions} positions and ${loaded.deals.length} deals from ${loaded.deals.reduce((m, d) => (d.date < m ? d.date : m), today)}; ${served.data.points.length} days, ${closesCount} closes; ${o.seconds} s per path (in-process, Postgres ${new URL(testPostgresUrl()).host})`,
    );
    // The served series is the computed one (the last day at live prices aside), rounded to 8 places.
    if (served.data.points.length !== computed.length || served.data.points.slice(0, -1).some((p, i) => p.value !== computed[i]!.value.round(8).toString() || p.invested !== computed[i]!.invested.round(8).toString())) {
      throw new Error('the service answers differently from valueHistory');
    }

    const compute = await measure(o.seconds, async () => valueHistory(loaded.deals, packed, today));
    const t0 = performance.now();
    const naive = naiveValueHistory(loaded.deals, byKey, today);
    const naiveMs = performance.now() - t0;
    const same = naive.length === computed.length && naive.every((p, i) => p.date === computed[i]!.date && p.value.cmp(computed[i]!.value) === 0 && p.invested.cmp(computed[i]!.invested) === 0);
    if (!same) throw new Error('the naive recomputation answers differently from valueHistory');

    const pad = (s: string, w: number) => s.padStart(w);
    console.log(`${'path'.padEnd(10)}${pad('p50 ms', 10)}${pad('p99 ms', 10)}${pad('mean ms', 10)}${pad('runs', 8)}${pad('vs naive', 12)}`);
    for (const [path, r] of [['service', service], ['compute', compute]] as const) {
      console.log(`${path.padEnd(10)}${pad(r.p50.toFixed(2), 10)}${pad(r.p99.toFixed(2), 10)}${pad(r.mean.toFixed(2), 10)}${pad(String(r.runs), 8)}${pad(`${(naiveMs / r.mean).toFixed(0)}x`, 12)}`);
    }
    console.log(`${'naive'.padEnd(10)}${pad(naiveMs.toFixed(0), 10)}${pad('-', 10)}${pad(naiveMs.toFixed(0), 10)}${pad('1', 8)}${pad('1x', 12)}`);
    console.log('naive and computed series equal day by day: yes');
    console.log(`target: value over time uncached under ${TARGET_MS} ms: service p99 ${service.p99.toFixed(2)} ms, ${service.p99 < TARGET_MS ? 'met' : 'NOT met'}`);
  } finally {
    await db.close();
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}
