/**
 * `npm run bench -- alerts [--notifications 1000000] [--assets 3000] [--runs 3] [--move 0.1 | --stress] [--chunk 500] [--writers 2] [--no-index] [--no-warmup] [--warmup-runs 6] [--keep] [--reuse <database url>] [--batch-seed N] [--cpu-prof <dir>] [--gap <s>] [--heap-growing-percent N] [--perf-ctl <fifo>]`
 *
 * Alerts evaluation on a RatesUpdated batch of every asset: the alerts service (in this process, on its own
 * database and bus prefix) holds N active notifications (default 1,000,000: 50 % price-target, 40 %
 * price-change on an asset, 10 % price-change on a portfolio of ~8 assets) over ~3,000 assets with a skew
 * (a few assets carry most notifications), in a realistic state: every price-change has already fired up to
 * the step above the asset's current 24h change, every target is still ahead of the rate. The batch moves
 * each asset's 24h change by up to ±`--move` percentage points, uniformly (default 0.1: a mean move of 0.05 pp,
 * about a typical minute of a liquid share in session, whose per-minute returns have a standard deviation of
 * ~0.05-0.1 %; `--stress` is 0.5, every asset moving five times that in the same minute, a crash-like one),
 * so the notifications whose threshold lies between the old and the new value fire.
 *
 * Measured per run (after `--warmup-runs` batches like them, printed as warm-up runs and not counted: a service
 * has long run its hot code optimised, a new process has not): publish of the RatesUpdated to JetStream → each
 * NotificationFired seen on JetStream by a subscriber in a process of its own, as another service would see it
 * (p50/p99/max), firings, notifications covered per second, memory, and the CPU time each process on the
 * machine's two cores used from the publish to the last NotificationFired (the alerts thread, the alerts
 * process's other threads, Postgres, nats-server, the subscriber). Beside it, in the same run, a full-scan
 * evaluator (what the spec's 3/15-minute polling does: read every active notification, evaluate each against
 * the latest rates in memory; it writes nothing), in a process of its own, over the same data, with its time
 * and memory, and a check that both fire the same notifications. `--keep` keeps the seeded database;
 * `--reuse <url>` runs on such a database again without seeding (its state moved on by the earlier runs'
 * firings). `--batch-seed N` draws the batches' moves from a seeded generator: two copies of one kept database
 * (`create database … template …`) then get the same batches, so two builds compare on the same firings.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { type BusEvent, eventSubject, MarketEventTypes, type RateChange, type RatesUpdatedV1 } from '@invest/contracts';
import { busSubject, createLogger, ensureEventStream, streamNameOf } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { createAlertsApp } from '@invest/alerts/alerts.app';
import { numberArg } from './support/args.js';
import { cpuSpent, ownThreads, pidsNamed, readCpu } from './support/cpu-budget.js';
import { startObserver } from './support/fired-observer.js';
import { startFullScanner } from './support/full-scan.js';
import { collectGarbage } from './support/gc.js';
import { type BatchLatency, formatLatencySummary, summariseLatencies } from './support/latency-summary.js';


const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MB`;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function run(args: string[]): Promise<void> {
  const total = numberArg(args, 'notifications', 1_000_000);
  const assets = numberArg(args, 'assets', 3000);
  const runs = numberArg(args, 'runs', 3);
  /** Largest move of an asset's 24h change per batch, in percentage points (uniform ±). */
  const move = numberArg(args, 'move', args.includes('--stress') ? 0.5 : 0.1);
  /** `--gap <s>`: the process idles this long before each measured publish, not the warm-up runs' (a service gets a batch a minute; default 0). */
  const gapMs = numberArg(args, 'gap', 0) * 1000;
  const firingChunk = numberArg(args, 'chunk', 500);
  /** `--heap-growing-percent N`: the service's old-generation growth (its default unless given; 0: V8's own factor). */
  const heapGrowingPercent = args.includes('--heap-growing-percent') ? numberArg(args, 'heap-growing-percent', 0) : undefined;
  const firingWriters = numberArg(args, 'writers', 2);
  /**
   * `--warmup-runs N`: batches like the measured ones first, printed but not counted (default 6; none with
   * `--no-warmup`, which also skips the warm-up batch of stored rates). A service has evaluated a batch a minute
   * for hours: V8 has long compiled its hot code with its optimising tiers. In a new process, the first ~6 such
   * batches still spend 35-115 ms of CPU on other threads (mostly compiling: `perf` put V8's compiler at ~10 %
   * of all samples in them) and run the code unoptimised meanwhile.
   */
  const warmupRuns = args.includes('--no-warmup') ? 0 : numberArg(args, 'warmup-runs', 6);
  /** `--no-index`: the consumer reads candidates by index ranges (the previous way), for comparison. */
  const useIndex = !args.includes('--no-index');
  const reuse = args.includes('--reuse') ? args[args.indexOf('--reuse') + 1] : undefined;
  /** `--cpu-prof <dir>`: a CPU profile of each measured run, from its publish to its last NotificationFired (+300 ms). */
  const profileDir = args.includes('--cpu-prof') ? args[args.indexOf('--cpu-prof') + 1] : undefined;
  const random = args.includes('--batch-seed') ? seededRandom(numberArg(args, 'batch-seed', 1)) : Math.random;
  /** `--perf-ctl <fifo>`: writes `enable` / `disable` there around each measured run, for `perf record --control fifo:<fifo> -D -1`. */
  const perfCtl = args.includes('--perf-ctl') ? args[args.indexOf('--perf-ctl') + 1] : undefined;
  const perf = (cmd: 'enable' | 'disable') => perfCtl && appendFileSync(perfCtl, `${cmd}\n`);
  const profiler = profileDir ? new Session() : undefined;
  if (profiler && profileDir) {
    mkdirSync(profileDir, { recursive: true });
    profiler.connect();
    await profiler.post('Profiler.enable');
    // 0.1 ms: a batch lasts ~100-300 ms; the default interval leaves too few samples to tell its phases apart.
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
  }
  const logger = createLogger('bench', 'warn');
  const database = reuse ? { url: reuse, drop: async () => undefined } : await createTestDatabase('bench_alerts');
  const busPrefix = `${uniqueName('bench_alerts')}.`;
  const natsUrl = testNatsUrl();
  const marketTz = 'Europe/Moscow';
  let committedAt = 0;
  const app = await createAlertsApp({
    databaseUrl: database.url,
    natsUrl,
    busPrefix,
    logger,
    marketTz,
    jobsEnabled: false,
    candidateIndex: useIndex,
    ...(heapGrowingPercent !== undefined ? { heapGrowingPercent } : {}),
    ratesConsumer: { firingChunk, firingWriters, afterCommit: () => void (committedAt = performance.now()) },
  });
  const { db, bus } = app;
  try {
    // --- seed -------------------------------------------------------------------------------------------
    const seedStart = performance.now();
    const now = new Date();
    const [{ seeded } = { seeded: false }] = await db.query<{ seeded: boolean }>("select exists (select 1 from pg_tables where tablename = 'bench_assets') as seeded");
    if (seeded) {
      // A kept database: its rates are made fresh again (the firings' cooldowns stay as they are).
      await db.query('update latest_rates set as_of = $1, observed_at = $1', [now]);
    } else {
      // Bulk seeding: the candidate index is loaded afterwards instead of following a million changes.
      await db.query('alter table notifications disable trigger user');
      await db.query('alter table memberships disable trigger user');
      await db.query(`create table bench_assets as
        select i as id, ('T' || i) as ticker,
               -- |24h change| ~ exponential, mean 0.7 %, either sign
               (case when random() < 0.5 then -1 else 1 end) * (-0.7 * ln(1 - random())) as c0
        from generate_series(1, $1::int) i`, [assets]);
      await db.query(`insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at)
        select 'share', id, ticker, 'RUB', 100 * (1 + c0 / 100), c0, $1, $1 from bench_assets`, [now]);
      await db.query(`insert into assets (asset_type, asset_id, ticker, name) select 'share', id, ticker, 'Asset ' || ticker from bench_assets`);
      // Skew: asset = 1 + floor(n * u^3): the first few percent of assets carry most notifications.
      const skewed = `(1 + floor($2::int * power(random(), 3)))::int`;
      const lastTriggered = new Date(now.getTime() - 61 * 60_000);
      const targets = Math.floor(total * 0.5);
      const changes = Math.floor(total * 0.4);
      const groups = total - targets - changes;
      await db.query(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, created_at, updated_at)
         select 'u' || (g % 200000), 2, 'asset', a.id, 'share', case when up then '>=' else '<=' end, t, t, null, $3, $3
         from (select g, ${skewed} as aid, random() < 0.5 as up, 0.005 + random() * 0.2 as gap from generate_series(1, $1::int) g) s
         join bench_assets a on a.id = s.aid
         cross join lateral (select 100 * (1 + a.c0 / 100) * (case when s.up then 1 + s.gap else 1 - s.gap end) as t) tt`,
        [targets, assets, now],
      );
      await db.query(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, last_triggered_at, created_at, updated_at)
         select 'u' || (g % 200000), 8, 'asset', a.id, 'share', '>=', v, v * (floor(abs(a.c0) / v) + 1), 60,
                case when abs(a.c0) >= v then $3::timestamptz else null end, $4, $4
         from (select g, ${skewed} as aid, (array[1, 2, 3, 5, 10])[1 + floor(random() * 5)::int] as v from generate_series(1, $1::int) g) s
         join bench_assets a on a.id = s.aid`,
        [changes, assets, lastTriggered, now],
      );
      const portfolios = Math.max(1, Math.floor(groups / 2));
      await db.query(
        `insert into memberships (target_type, target_id, asset_type, asset_id, user_id)
         select distinct 'portfolio', p, 'share', ${skewed}, 'u' || p from generate_series(1, $1::int) p, generate_series(1, 8) k`,
        [portfolios, assets],
      );
      await db.query(
        `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, target_name, operator, value, initial_value, cooldown_minutes, last_triggered_at, created_at, updated_at)
         select 'u' || p, 8, 'portfolio', p, null, 'Portfolio ' || p, '>=', v, v * (floor(m.top / v) + 1), 60,
                case when m.top >= v then $3::timestamptz else null end, $4, $4
         from (select g, 1 + (g % $2::int) as p, (array[1, 2, 3, 5, 10])[1 + floor(random() * 5)::int] as v from generate_series(1, $1::int) g) s
         join lateral (select max(abs(a.c0)) as top from memberships mm join bench_assets a on a.id = mm.asset_id
                       where mm.target_type = 'portfolio' and mm.target_id = s.p) m on true`,
        [groups, portfolios, lastTriggered, now],
      );
      await db.query('alter table notifications enable trigger user');
      await db.query('alter table memberships enable trigger user');
      await db.query('analyze');
    }
    const indexStart = performance.now();
    if (useIndex) await app.evaluator.loadIndex(db);
    const indexMs = performance.now() - indexStart;
    const [{ n } = { n: '0' }] = await db.query<{ n: string }>('select count(*)::text as n from notifications where is_active');
    // What a full collection costs this process with the index loaded (the load's garbage collected first):
    // the service pays it whenever V8 collects its old generation, possibly in the middle of a batch.
    collectGarbage();
    const heapUsed = process.memoryUsage().heapUsed;
    const cpu0 = process.cpuUsage();
    const gc0 = performance.now();
    collectGarbage();
    const gcMs = performance.now() - gc0;
    const gcCpu = process.cpuUsage(cpu0);
    console.log(
      `${seeded ? 'reused' : 'seeded'} ${n} active notifications over ${assets} assets in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; ` +
        `candidate index loaded in ${(indexMs / 1000).toFixed(1)} s, rss ${mb(process.memoryUsage().rss)}; ` +
        `a full collection: ${gcMs.toFixed(0)} ms (${((gcCpu.user + gcCpu.system) / 1000).toFixed(0)} ms of CPU), heap in use ${mb(heapUsed)}`,
    );

    await ensureEventStream(bus, 'market');
    // The full-scan baseline runs in a process of its own (support/full-scan.ts).
    const scanner = startFullScanner(database.url);
    // NotificationFired is timed where another service would receive it: in a process of its own.
    const observer = await startObserver(natsUrl, busSubject(busPrefix, eventSubject('alerts', 'NotificationFired')));
    const msSince = (t: bigint) => (at: bigint) => Number(at - t) / 1e6;

    if (!args.includes('--no-warmup')) {
      // A running service has evaluated a batch a minute before: one batch of the stored rates, unchanged but
      // newer, first (not measured), so the runs do not pay for the first event of a process (code not yet
      // optimised, schemas compiled on first use). It fires what had come out of its cooldown meanwhile, and
      // ~1,000 notifications of users of its own created for it (price-targets already reached, price-changes
      // of assets and portfolios already crossed), so the firing code has run too, as in a running service;
      // they are deleted before the measured runs (the full scan and the event path never see them).
      const warmups = await seedWarmupNotifications(db, now);
      const current = await db.query<{ asset_id: string; ticker: string; rate: number; change_24h: number }>("select asset_id::text, ticker, rate, change_24h from latest_rates where asset_type = 'share'");
      const asOf = new Date().toISOString();
      const data: RatesUpdatedV1 = {
        version: 1,
        source: 'bench',
        rates: current.map((c) => ({ assetType: 'share', assetId: Number(c.asset_id), ticker: c.ticker, currency: 'RUB', rate: c.rate, priceChangePercentage24h: c.change_24h, asOf })),
      };
      const event: BusEvent<RatesUpdatedV1> = { id: randomUUID(), type: MarketEventTypes.RatesUpdated, streamName: 'rates-share', streamPosition: 0, recordedAt: new Date().toISOString(), data, metadata: {} };
      await observer.reset();
      const t0 = performance.now();
      committedAt = 0;
      await bus.js.publish(busSubject(busPrefix, eventSubject('market', MarketEventTypes.RatesUpdated)), JSON.stringify(event), { msgID: event.id });
      const until = Date.now() + 120_000;
      while (committedAt === 0 && Date.now() < until) await new Promise((res) => setTimeout(res, 5));
      const fired = await observer.collect(0);
      console.log(`warm-up batch (stored rates, unchanged; ${warmups} warm-up notifications): ${fired.length} NotificationFired, committed at ${(committedAt - t0).toFixed(0)} ms`);
      await db.query("delete from notification_firings where user_id like 'warmup-%'");
      await db.query("delete from notifications where user_id like 'warmup-%'");
    }

    const measuredRuns: BatchLatency[] = [];
    for (let i = 1; i <= warmupRuns + runs; i++) {
      const r = i - warmupRuns;
      const measured = r >= 1;
      const label = measured ? `run ${r}` : `warm-up run ${i} of ${warmupRuns}`;
      // The batch: every asset's change moves by up to ±`move` percentage points.
      const current = await db.query<{ asset_id: string; ticker: string; change_24h: number }>("select asset_id::text, ticker, change_24h from latest_rates where asset_type = 'share' order by latest_rates.asset_id");
      const asOf = new Date();
      const rates: RateChange[] = current.map((c) => {
        const c1 = Math.round((c.change_24h + (random() - 0.5) * 2 * move) * 1e4) / 1e4;
        return { assetType: 'share', assetId: Number(c.asset_id), ticker: c.ticker, currency: 'RUB', rate: Math.round(100 * (1 + c1 / 100) * 1e4) / 1e4, priceChangePercentage24h: c1, asOf: asOf.toISOString() };
      });

      // Full scan (the polling baseline) over the same state with the new rates, before the event applies them.
      // In a process of its own (support/full-scan.ts): its garbage and the collections it causes stay there.
      const scan = await scanner.scan(rates, { now: asOf, maxRateAgeMs: 3_600_000, marketTz }, asOf);
      // No collection is forced before the run (the bench did so while the full scan ran in this process, to
      // spare the event the scan's garbage): the measured process collects when V8 decides, as a service does.

      // The event path: publish, then collect NotificationFired until the expected count arrived.
      await observer.reset();
      if (profiler && measured) await profiler.post('Profiler.start');
      const heapBefore = process.memoryUsage().heapUsed;
      const data: RatesUpdatedV1 = { version: 1, source: 'bench', rates };
      const event: BusEvent<RatesUpdatedV1> = { id: randomUUID(), type: MarketEventTypes.RatesUpdated, streamName: 'rates-share', streamPosition: i, recordedAt: new Date().toISOString(), data, metadata: {} };
      const payload = JSON.stringify(event);
      // At the real cadence the process has idled since the last batch (`--gap 55`, with the ~5 s scan: a minute).
      // The warm-up runs follow each other at once: they are there to get V8's tiers through the code.
      if (gapMs > 0 && measured) await new Promise((resolve) => setTimeout(resolve, gapMs));
      // The CPU time of everything on the machine's two cores that the run involves, from the publish to the
      // last NotificationFired: where the latency goes when the cores, not a wait, are the limit.
      // Listed again at the end: a process or thread started meanwhile (a pooled connection's new backend)
      // counts with all its time.
      const cpuGroups = () => {
        const own = ownThreads();
        return { 'alerts thread': own.main, 'its other threads': own.others, Postgres: pidsNamed('postgres'), 'nats-server': pidsNamed('nats-server'), observer: [String(observer.pid)], 'full scan': [String(scanner.pid)] };
      };
      if (measured) perf('enable');
      const cpu0 = readCpu(cpuGroups());
      const t0 = performance.now();
      const published = process.hrtime.bigint();
      await bus.js.publish(busSubject(busPrefix, eventSubject('market', MarketEventTypes.RatesUpdated)), payload, { msgID: event.id });
      // Read as soon as the expected count arrived (within the observer's 2 ms poll), then any beyond it.
      await observer.collect(scan.fired.size, 120_000, 0);
      const cpu = cpuSpent(cpu0, readCpu(cpuGroups()));
      if (measured) perf('disable');
      const cpuWindowMs = performance.now() - t0;
      const fired = (await observer.collect(0)).map(msSince(published));
      const heapAfter = process.memoryUsage().heapUsed;
      if (profiler && profileDir && measured) {
        const { profile } = (await profiler.post('Profiler.stop')) as { profile: object };
        writeFileSync(join(profileDir, `alerts-run-${r}.cpuprofile`), JSON.stringify(profile));
      }
      const latencies = [...fired].sort((a, b) => a - b);
      const got = await db.query<{ notification_id: string }>('select notification_id::text from notification_firings where fired_at >= $1', [asOf]);
      const same = got.length === scan.fired.size && got.every((g) => scan.fired.has(Number(g.notification_id)));
      const lastMs = latencies.at(-1) ?? 0;
      const p99 = pct(latencies, 99);
      if (measured) measuredRuns.push({ firings: latencies.length, p99Ms: p99 });
      console.log(`\n${label}: ${rates.length} rates, ${latencies.length} NotificationFired (full scan expects ${scan.fired.size}; same notifications: ${same ? 'yes' : 'NO'})`);
      console.log(
        `  event (indexed):  publish → NotificationFired  p50 ${pct(latencies, 50).toFixed(1)} ms   p99 ${p99.toFixed(1)} ms   max ${lastMs.toFixed(1)} ms` +
          `   (handler started at ${(app.evaluator.lastTimings.startedAt! - t0).toFixed(0)} ms, evaluated and committed at ${(committedAt - t0).toFixed(0)} ms: ${Object.entries(app.evaluator.lastTimings).filter(([k]) => k !== 'startedAt').map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')})`+
          `\n                   `+`   ${(Number(n) / (lastMs / 1000)).toFixed(0)} notifications covered/s   heap +${mb(heapAfter - heapBefore)}, rss ${mb(process.memoryUsage().rss)}`,
      );
      const cpuTotal = Object.values(cpu).reduce((a, b) => a + b, 0);
      console.log(
        `  CPU from the publish to the last NotificationFired (${cpuWindowMs.toFixed(0)} ms, 2 cores: ${(2 * cpuWindowMs).toFixed(0)} ms): ` +
          `${Object.entries(cpu).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}; ${cpuTotal.toFixed(0)} ms in all` +
          (latencies.length > 0 ? `, ${((cpuTotal * 1000) / latencies.length).toFixed(0)} µs a firing` : ''),
      );
      console.log(
        `  full scan:        read ${scan.readMs.toFixed(0)} ms + evaluate ${scan.evalMs.toFixed(0)} ms = ${(scan.readMs + scan.evalMs).toFixed(0)} ms for ${scan.evaluated} notifications` +
          `   ${(scan.evaluated / ((scan.readMs + scan.evalMs) / 1000)).toFixed(0)} evaluations/s   heap +${mb(scan.heapBytes)} (writes nothing)`,
      );
    }
    // The issue's target, p99 ≤ 200 ms, over the measured batches by size (the warm-up runs are not counted).
    if (measuredRuns.length > 0) console.log(`\n${formatLatencySummary(summariseLatencies(measuredRuns, 200))}`);
    observer.close();
    scanner.close();
  } finally {
    await app.close().catch(() => undefined);
    const { connectBus } = await import('@invest/platform');
    const b = await connectBus({ natsUrl, name: 'bench-cleanup', prefix: busPrefix });
    for (const ctx of ['market', 'alerts', 'portfolios'] as const) await b.jsm.streams.delete(streamNameOf(b, ctx)).catch(() => undefined);
    await b.close();
    if (args.includes('--keep') || reuse) console.log(`kept database ${database.url}`);
    else await database.drop();
  }
}

/**
 * Notifications of warm-up users that the stored rates fire at once: 500 price-targets already reached, 300
 * price-changes of assets whose |24h change| is at least 1 %, 200 price-changes of portfolios (threshold 1 %),
 * on assets and portfolios spread over all (not the most popular first).
 * Created like any (their triggers tell the candidate index). Returns how many.
 */
async function seedWarmupNotifications(db: import('@invest/platform').Db, now: Date): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `with t as (
       insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, created_at, updated_at)
       select 'warmup-' || r.asset_id, 2, 'asset', r.asset_id, 'share', '>=', r.rate * 0.99, r.rate * 0.99, null, $1, $1
         from latest_rates r where r.asset_type = 'share' order by md5(r.asset_id::text) limit 500 returning 1),
     c as (
       insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, created_at, updated_at)
       select 'warmup-c' || r.asset_id, 8, 'asset', r.asset_id, 'share', '>=', 1, 1, 60, $1, $1
         from latest_rates r where r.asset_type = 'share' and abs(r.change_24h) >= 1 order by md5(r.asset_id::text) limit 300 returning 1),
     g as (
       insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, target_name, operator, value, initial_value, cooldown_minutes, created_at, updated_at)
       select 'warmup-p' || p.target_id, 8, 'portfolio', p.target_id, null, 'Warm-up ' || p.target_id, '>=', 1, 1, 60, $1, $1
         from (select distinct target_id, md5(target_id::text) from memberships where target_type = 'portfolio' order by 2 limit 200) p returning 1)
     select ((select count(*) from t) + (select count(*) from c) + (select count(*) from g))::int as n`,
    [now],
  );
  return rows[0]?.n ?? 0;
}

/** mulberry32: a small seeded generator of uniform numbers in [0, 1). */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

