/**
 * `npm run bench -- rates [--assets N] [--rounds N] [--no-gc] [--baseline <git ref>]`: one MOEX board of N shares
 * (default 3,000) whose prices all change every round, through the screener's own code:
 *   parse          - provider body (JSON text) to rate inputs: JSON.parse, ISS blocks by column name, price chain;
 *   upsert         - the batch transaction: compare, update rates and closes, record ONE RatesUpdated;
 *   to JetStream   - from the provider response being received to the RatesUpdated event being readable
 *                    on MARKET_EVENTS (parse + upsert + relay woken by LISTEN/NOTIFY + publish + delivery).
 * Also: the first changed batch of a market day (the closes roll over and the 7-day base is read again), an
 * unchanged batch (what every quiet refresh costs), and where the changed batch's transaction spends its time,
 * statement by statement. Two variants, round by round in the same run, on the same batches:
 *   now      - this tree's code (its build in dist/);
 *   baseline - the code of `--baseline <ref>` (default 020afbd, main when issue 31 was filed), built in a git
 *              worktree (support/baseline-ref.ts): its platform (database, relay), parser, writer and migrations.
 * The guard rail: now's p99 within 1.25 × the baseline's. Each variant has a fresh database (with a month of
 * daily closes) and relay (removed afterwards); one unique bus prefix; the fake provider serves a synthetic board
 * in the real ISS layout.
 */
import { connectBus, createLogger, ensureEventStream, EventRelay, openDatabase, streamNameOf } from '@invest/platform';
import { testNatsUrl, testPostgresUrl, uniqueName } from '@invest/platform/testing/index';
import type { BusEvent, RatesUpdatedV1 } from '@invest/contracts';
import { loadShareCategories } from '@invest/screener/jobs/asset-rates.job';
import { MOEX_MARKETS, issMarketPath, parseIssMarket } from '@invest/screener/market-data/iss-market.parser';
import { migrations } from '@invest/screener/migrations/index';
import { moexRateInputs } from '@invest/screener/rates/moex-rates.source';
import { writeRateBatch } from '@invest/screener/rates/rate-writer';
import { screenerEventSubject } from '@invest/screener/rates/rates-updated.recorder';
import { FakeProviders, type IssBlock } from '@invest/screener/testing/fake-providers';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { parseOptions } from './support/args.js';
import { type BaselineBuild, baselineRefArg, prepareBaseline } from './support/baseline-ref.js';
import { collectGarbage } from './support/gc.js';
import { PhaseTimer } from './support/phase-timer.js';

/** The commit issue 31's guard rails compare with. */
const DEFAULT_BASELINE = '020afbd';
/** Now's p99 may be at most this many times the baseline's (issue 31). */
const GUARD_RATIO = 1.25;

interface Options {
  baseline: string;
  assets: number;
  rounds: number;
  /** `--no-gc`: no full collection before each refresh (the other variants' garbage lands where it falls). */
  gc: boolean;
}

function parseArgs(args: string[]): Options {
  const { ref, rest } = baselineRefArg(args, DEFAULT_BASELINE);
  return { baseline: ref, ...parseOptions(rest.filter((a) => a !== '--no-gc'), { assets: 3000, rounds: 40 }), gc: !rest.includes('--no-gc') };
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const fmt = (ms: number) => `${ms.toFixed(1).padStart(8)} ms`;

/** N shares on TQBR, cloned from SBER's rows of the real capture (same columns, same block layout). */
function syntheticBoard(fake: FakeProviders, n: number): void {
  const doc = fake.doc('shares');
  for (const name of ['securities', 'marketdata'] as const) {
    const block = doc[name] as IssBlock;
    const col = (c: string) => block.columns.indexOf(c);
    const template = block.data.find((r) => r[col('SECID')] === 'SBER' && r[col('BOARDID')] === 'TQBR')!;
    block.data = Array.from({ length: n }, (_, i) => {
      const row = [...template];
      row[col('SECID')] = `BN${String(i).padStart(5, '0')}`;
      if (name === 'securities') row[col('ISIN')] = `RU${String(i).padStart(9, '0')}0`;
      else row[col('LAST')] = 100 + (i % 500);
      return row;
    });
  }
}

function bumpPrices(fake: FakeProviders, round: number): void {
  const md = fake.doc('shares').marketdata as IssBlock;
  const last = md.columns.indexOf('LAST');
  md.data.forEach((row, i) => {
    row[last] = +(100 + (i % 500) + round * 0.01).toFixed(2);
  });
}

/** The code a variant runs: the functions of a refresh as the screener's rates job calls them. */
const currentCode = { openDatabase, EventRelay, migrations, loadShareCategories, MOEX_MARKETS, parseIssMarket, moexRateInputs, writeRateBatch, screenerEventSubject };
type RatesCode = typeof currentCode;

/** The same functions from the baseline's build; a name the ref does not export stops the bench, naming it. */
async function baselineCode(build: BaselineBuild): Promise<RatesCode> {
  const pick = async (folder: string, module: string, names: (keyof RatesCode)[]) => {
    const m = await build.importDist<Record<string, unknown>>(folder, module);
    const missing = names.filter((n) => m[n] === undefined);
    if (missing.length) throw new Error(`baseline ${build.sha.slice(0, 7)}: ${folder}/src/${module}.ts exports no ${missing.join(', ')}`);
    return Object.fromEntries(names.map((n) => [n, m[n]]));
  };
  const parts = await Promise.all([
    pick('platform', 'index', ['openDatabase', 'EventRelay']),
    pick('services/screener', 'migrations/index', ['migrations']),
    pick('services/screener', 'jobs/asset-rates.job', ['loadShareCategories']),
    pick('services/screener', 'market-data/iss-market.parser', ['MOEX_MARKETS', 'parseIssMarket']),
    pick('services/screener', 'rates/moex-rates.source', ['moexRateInputs']),
    pick('services/screener', 'rates/rate-writer', ['writeRateBatch']),
    pick('services/screener', 'rates/rates-updated.recorder', ['screenerEventSubject']),
  ]);
  return Object.assign({}, ...parts) as RatesCode;
}

const HISTORY_DAYS = 30;

/** The writers' statements, named for the per-phase breakdown (older refs' statements included). */
const statementLabels: [RegExp, string][] = [
  [/pg_advisory_xact_lock/, 'lock'],
  [/rate_updated_at::text from assets/, 'known assets (select)'],
  [/^\s*with x as/, 'upsert statement'],
  [/a\.id is null as missing/, 'unwritten keys (select)'],
  [/insert into assets/, 'insert missing assets'],
  [/insert into es_events/, 'event: insert'],
  [/as existing/, 'event: version and ids (select)'],
  [/from es_events where event_id/, 'event: id check (select)'],
  [/max\(stream_position\)/, 'event: stream version (select)'],
  [/savepoint/, 'event: savepoints'],
];
const statementLabel = (sql: string) => statementLabels.find(([re]) => re.test(sql))?.[1];

interface Variant {
  name: string;
  code: RatesCode;
  dbName: string;
  db: Awaited<ReturnType<typeof openDatabase>>;
  relay: EventRelay;
  phases: PhaseTimer;
  parse: number[];
  upsert: number[];
  endToEnd: number[];
  unchanged: number[];
  dayFirst: number[];
}

export async function run(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const baseline = prepareBaseline(opts.baseline);
  const logger = createLogger('bench-rates', 'warn');
  const prefix = `${uniqueName('benchrates')}.`;
  const fake = await FakeProviders.start();
  syntheticBoard(fake, opts.assets);
  const bus = await connectBus({ natsUrl: testNatsUrl(), name: 'bench-rates', prefix });
  const stream = await ensureEventStream(bus, 'market');

  const variants: Variant[] = [];
  for (const [name, code] of [
    ['now', currentCode],
    ['baseline', await baselineCode(baseline)],
  ] as const) {
    const dbName = uniqueName(`bench_rates_${name}`);
    const db = await code.openDatabase({ url: testPostgresUrl(dbName), migrations: code.migrations, logger, poolMax: 4 });
    const relay = new code.EventRelay({ db, bus, name: 'screener-relay', logger, subjectFor: code.screenerEventSubject });
    await relay.start();
    variants.push({ name, code, dbName, db, relay, phases: new PhaseTimer(statementLabel), parse: [], upsert: [], endToEnd: [], unchanged: [], dayFirst: [] });
  }

  // Every published RatesUpdated, by its batch source, with the time it became readable here.
  const arrived = new Map<string, { at: number; rates: number }>();
  const waiters = new Map<string, () => void>();
  const consumer = await bus.js.consumers.get(stream);
  const messages = await consumer.consume();
  const reading = (async () => {
    for await (const m of messages) {
      const event = m.json<BusEvent<RatesUpdatedV1>>();
      arrived.set(event.data.source, { at: performance.now(), rates: event.data.rates.length });
      waiters.get(event.data.source)?.();
    }
  })();
  const readable = (source: string) =>
    new Promise<void>((resolve, reject) => {
      if (arrived.has(source)) return resolve();
      const t = setTimeout(() => reject(new Error(`no RatesUpdated for ${source} within 30 s`)), 30_000);
      waiters.set(source, () => {
        clearTimeout(t);
        resolve();
      });
    });

  const endpoint = `${fake.moexUrl}${issMarketPath(MOEX_MARKETS.shares, 'TQBR')}`;

  /**
   * One refresh as the job does it, timed: fetch, parse, write. It starts after a full garbage collection: a
   * screener refreshes a board once a minute and is idle in between, while this process runs two writers, their
   * relays, the fake provider and the event reader back to back, whose garbage (none of it a real screener's)
   * would otherwise be collected inside whichever transaction came next. The refresh's own garbage (the 1.8 MB
   * body, its parse, the write) is collected where it falls, as in the service.
   */
  async function refresh(v: Variant, source: string) {
    if (opts.gc) collectGarbage();
    const { code } = v;
    const spec = code.MOEX_MARKETS.shares;
    const categories = await code.loadShareCategories(v.db);
    const res = await fetch(endpoint);
    const body = await res.text();
    const received = performance.now();
    const parsed = code.parseIssMarket(JSON.parse(body), spec, { board: 'TQBR' });
    const { items } = code.moexRateInputs(spec, parsed.quotes, categories, new Date());
    const parsedAt = performance.now();
    const result = await code.writeRateBatch(v.phases.timed(v.db), { assetType: 'share', source, items, insertMissing: true }, { marketTz: 'Europe/Moscow' });
    // Without the timer's own round trip (reading the backend's pid).
    const probeMs = v.phases.runs.at(-1)?.get('probe') ?? 0;
    const writtenAt = performance.now() - probeMs;
    return { received, probeMs, parseMs: parsedAt - received, upsertMs: writtenAt - parsedAt, result, bytes: body.length };
  }

  try {
    console.log(`baseline: ${opts.baseline} (commit ${baseline.sha.slice(0, 12)}), built in ${baseline.root}`);
    if (baseline.lockDifferences.length) {
      console.log(`  its lock file pins other versions than installed here; it runs on this tree's: ${baseline.lockDifferences.join('; ')}`);
    }
    console.log(`${opts.assets} shares on one board, ${opts.rounds} rounds (every price changes each round)${opts.gc ? '' : ', no full GC before a refresh'}; Postgres ${new URL(testPostgresUrl()).host}, NATS ${testNatsUrl()}; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`);
    // Warm-up: creates the assets (and their sibling rows), then one changed round.
    for (const v of variants) {
      const first = await refresh(v, `bench:${v.name}:create`);
      await readable(`bench:${v.name}:create`);
      if (v === variants[0]) console.log(`provider body ${(first.bytes / 1024).toFixed(0)} KiB; first batch created ${first.result.inserted} assets`);
      // A month of daily closes, as after a month of refreshes: the 7-day change finds its close, and the
      // closes table is not just today's rows.
      await v.db.query(
        `insert into asset_daily_closes (asset_id, trade_date, close)
         select a.id, (now() at time zone 'Europe/Moscow')::date - d, a.current_rate * (1 + d / 1000.0)
         from assets a cross join generate_series(1, ${HISTORY_DAYS}) d
         on conflict do nothing`,
      );
      await v.db.query('analyze');
    }
    bumpPrices(fake, 1);
    for (const v of variants) {
      await refresh(v, `bench:${v.name}:warm`);
      await readable(`bench:${v.name}:warm`);
    }

    for (const v of variants) v.phases.reset();
    for (let round = 2; round < opts.rounds + 2; round++) {
      bumpPrices(fake, round);
      // Alternate which variant goes first, so both see the same machine.
      for (const v of round % 2 ? [...variants].reverse() : variants) {
        const source = `bench:${v.name}:round-${round}`;
        const r = await refresh(v, source);
        if (r.result.changed.length !== opts.assets || r.result.events !== 1) {
          throw new Error(`${v.name} round ${round}: expected ${opts.assets} changes in one event, got ${r.result.changed.length} in ${r.result.events}`);
        }
        await readable(source);
        const got = arrived.get(source)!;
        if (got.rates !== opts.assets) throw new Error(`${v.name} round ${round}: the published event carries ${got.rates} rates`);
        v.parse.push(r.parseMs);
        v.upsert.push(r.upsertMs);
        v.endToEnd.push(got.at - r.received - r.probeMs);
      }
    }

    const breakdown = variants.map((v) => v.phases.summary(percentile));
    // The first batch of a market day, as if the stored rates were yesterday's: the writer stores yesterday's
    // closes (rows that are not there yet) and reads the 7-day base again. A ref from before the roll-over
    // (migration 0007: no close_7d_base_for) wrote today's close on every refresh: it inserts that row again.
    const rollsOver = new Map<Variant, boolean>();
    for (const v of variants) {
      const [{ has } = { has: false }] = await v.db.query<{ has: boolean }>(
        "select exists (select 1 from information_schema.columns where table_name = 'assets' and column_name = 'close_7d_base_for') as has",
      );
      rollsOver.set(v, has);
    }
    for (let i = 0; i < Math.min(5, opts.rounds); i++) {
      bumpPrices(fake, opts.rounds + 2 + i);
      for (const v of variants) {
        if (rollsOver.get(v)) {
          await v.db.query(`update assets set rate_updated_at = rate_updated_at - interval '1 day', close_7d_base_for = null`);
          await v.db.query(`delete from asset_daily_closes where trade_date = (now() at time zone 'Europe/Moscow')::date - 1`);
        } else {
          await v.db.query(`delete from asset_daily_closes where trade_date = (now() at time zone 'Europe/Moscow')::date`);
        }
        const r = await refresh(v, `bench:${v.name}:day-first-${i}`);
        if (r.result.changed.length !== opts.assets) throw new Error(`${v.name}: a day's first batch changed ${r.result.changed.length}`);
        v.dayFirst.push(r.upsertMs);
      }
    }
    for (let i = 0; i < Math.min(5, opts.rounds); i++) {
      for (const v of variants) {
        const r = await refresh(v, `bench:${v.name}:unchanged-${i}`);
        if (r.result.changed.length !== 0) throw new Error('an unchanged batch reported changes');
        v.unchanged.push(r.upsertMs);
      }
    }

    // Side by side: now and the baseline, p50 and p99, and now's p99 over the baseline's.
    const [now, base] = variants as [Variant, Variant];
    const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2).padStart(8)}×` : '        -');
    console.log(`\n${'figure'.padEnd(48)}${'p50 now'.padStart(11)}${'baseline'.padStart(11)}${'p99 now'.padStart(11)}${'baseline'.padStart(11)}${'p99 now/base'.padStart(14)}`);
    const line = (name: string, a: number[], b: number[]) => {
      const [a99, b99] = [percentile(a, 99), percentile(b, 99)];
      console.log(`${name.padEnd(48)}${fmt(percentile(a, 50))}${fmt(percentile(b, 50))}${fmt(a99)}${fmt(b99)}${ratio(a99, b99).padStart(14)}`);
    };
    line(`parse (${opts.assets} rows)`, now.parse, base.parse);
    line(`upsert + RatesUpdated (${opts.assets} changed)`, now.upsert, base.upsert);
    line('provider response -> event on JetStream', now.endToEnd, base.endToEnd);
    line('first changed batch of a market day', now.dayFirst, base.dayFirst);
    line(`unchanged batch (${opts.assets} rows, no event)`, now.unchanged, base.unchanged);
    console.log(`\nwhere the changed batch's upsert spends its time (per transaction; p50 and p99 of each phase on its own):`);
    const [nowPhases, basePhases] = breakdown as [ReturnType<PhaseTimer['summary']>, ReturnType<PhaseTimer['summary']>];
    for (const phase of new Set([...nowPhases, ...basePhases].map((b) => b.phase).filter((p) => p !== 'probe'))) {
      const a = nowPhases.find((b) => b.phase === phase);
      const b = basePhases.find((x) => x.phase === phase);
      const cell = (ms: number | undefined) => (ms === undefined ? '-'.padStart(11) : fmt(ms));
      console.log(`${`  ${phase}`.padEnd(48)}${cell(a?.p50)}${cell(b?.p50)}${cell(a?.p99)}${cell(b?.p99)}${(a && b ? ratio(a.p99, b.p99) : '-').padStart(14)}`);
    }
    // Statistics reach pg_stat_user_tables within a second of each backend's last transaction.
    await new Promise((r) => setTimeout(r, 1500));
    console.log('\nrow updates that were HOT (no index entry, same page), over the whole run:');
    for (const v of variants) {
      const rows = await v.db.query<{ relname: string; upd: string; hot: string; pages: string }>(
        `select relname, n_tup_upd::text as upd, n_tup_hot_upd::text as hot, (pg_relation_size(relid) / 8192)::text as pages
         from pg_stat_user_tables where relname in ('assets', 'asset_daily_closes') order by relname desc`,
      );
      const pct = (r: { upd: string; hot: string }) => (Number(r.upd) ? ((100 * Number(r.hot)) / Number(r.upd)).toFixed(0) : '-');
      console.log(`  [${v.name}] ${rows.map((r) => `${r.relname} ${pct(r)} % of ${r.upd} (${r.pages} pages)`).join(', ')}`);
    }
    const p99 = percentile(now.upsert, 99);
    console.log(`\nupsert + RatesUpdated p99 ${p99.toFixed(1)} ms [now]: target ≤ 100 ms → ${p99 <= 100 ? 'met' : 'NOT met'}`);
    for (const [name, a, b] of [['upsert + RatesUpdated', now.upsert, base.upsert], ['provider response -> event on JetStream', now.endToEnd, base.endToEnd]] as const) {
      const r = percentile(a, 99) / percentile(b, 99);
      console.log(`${name} p99 now / baseline ${r.toFixed(2)}: guard rail ≤ ${GUARD_RATIO} → ${r <= GUARD_RATIO ? 'met' : 'NOT met'}`);
    }
  } finally {
    await messages.close().catch(() => undefined);
    await reading.catch(() => undefined);
    for (const v of variants) await v.relay.stop();
    await bus.jsm.streams.delete(streamNameOf(bus, 'market')).catch(() => undefined);
    await bus.close();
    for (const v of variants) await v.db.close();
    await fake.close();
    const admin = new pg.Client({ connectionString: testPostgresUrl() });
    await admin.connect();
    for (const v of variants) await admin.query(`drop database if exists "${v.dbName}" with (force)`);
    await admin.end();
  }
}
