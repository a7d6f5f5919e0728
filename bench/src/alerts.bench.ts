/**
 * `npm run bench -- alerts [--notifications 1000000] [--assets 3000] [--runs 3] [--move 0.1 | --stress] [--warmup-runs 6 | --no-warmup] [--gap <s>] [--batch-seed N] [--baseline <git ref>] [--keep] [--perf-ctl <fifo>]`
 *
 * Alerts evaluation on a RatesUpdated batch of every asset, for two builds of the alerts service side by side in
 * the same run, on the same data and the same batches:
 *   now      - this tree's `services/alerts/dist/main.js`;
 *   baseline - the same of `--baseline <ref>` (default 020afbd, main when issue 31 was filed), built in a git
 *              worktree (support/baseline-ref.ts).
 * Each runs as the service runs: its own process, started by its main with its environment (its own database,
 * migrated by its own migrations, and its own bus prefix; `ALERTS_JOBS_ENABLED=false`; other variables such as
 * `ALERTS_HEAP_GROWING_PERCENT` reach both from this process's environment). Both databases are seeded before
 * the services start (each loads its candidate index at boot) by the same statements in one transaction that
 * starts with `setseed`, so they hold the same rows: N active notifications (default 1,000,000: 50 % price-target,
 * 40 % price-change on an asset, 10 % price-change on a portfolio of ~8 assets) over ~3,000 assets with a skew
 * (a few assets carry most notifications), in a realistic state: every price-change has already fired up to the
 * step above the asset's current 24h change, every target is still ahead of the rate. Where the schema records
 * paid access (`paid_access`, since 75cefc5), every seeded user has paid access running for another 30 days,
 * so evaluation reads their rows on every batch as it does for paying users, and pauses nothing.
 *
 * A batch moves each asset's 24h change by up to ±`--move` percentage points, uniformly (default 0.1: a mean move
 * of 0.05 pp, about a typical minute of a liquid share in session; `--stress` is 0.5, a crash-like minute), so
 * the notifications whose threshold lies between the old and the new value fire. Per run, each variant (in
 * alternating order) gets the batch: a full-scan evaluator (the spec's polling, in a process of its own, on that
 * variant's database; it writes nothing) says what must fire, the batch is published to the variant's
 * MARKET_EVENTS, and each NotificationFired is timed where another service would see it (a subscriber in a process
 * of its own), from the publish. Printed per run and variant: p50/p99/max, the CPU time each process used from
 * the publish to the last NotificationFired (the service's main thread and its other threads, the Postgres
 * backends of its database and Postgres's background processes, nats-server, the subscriber) and that per
 * firing, and whether the firings stored are the full scan's. Before the measured runs, `--warmup-runs` batches
 * like them (not counted: a service has long run its hot code optimised, a new process has not), after one batch
 * of the stored rates with ~1,000 notifications created to fire at once (so the firing path has run too).
 *
 * The guard rail (issue 31): now's p99 and CPU per firing within 1.25 × the baseline's, over the measured runs.
 *
 * `--observability` (issue 36, item 6): both variants run this tree's build; `now` with metrics (`METRICS_PORT`,
 * scraped every second) and tracing (OTLP to a local receiver process) on, `baseline` with both off. Target:
 * within 1.05 ×.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BusEvent, eventSubject, MarketEventTypes, type RateChange, type RatesUpdatedV1 } from '@invest/contracts';
import { type Bus, busName, busSubject, connectBus, createLogger, type Db, openDatabase, streamNameOf } from '@invest/platform';
import { testNatsUrl, testPostgresUrl, uniqueName } from '@invest/platform/testing/index';
import { migrations } from '@invest/alerts/migrations/index';
import { RATES_UPDATED_DURABLE } from '@invest/alerts/rates/rates-updated.consumer';
import pg from 'pg';
import { numberArg } from './support/args.js';
import { percentile as pct } from './support/percentile.js';
import { type BaselineBuild, baselineRefArg, prepareBaseline } from './support/baseline-ref.js';
import { cpuSpent, type CpuGroups, ownThreads, pidsNamed, readCpu } from './support/cpu-budget.js';
import { type Observer, startObserver } from './support/fired-observer.js';
import { type FullScanner, type FullScanResult, startFullScanner } from './support/full-scan.js';
import { type BatchLatency, formatLatencySummary, summariseLatencies } from './support/latency-summary.js';
import { type Observability, startObservability } from './support/observability.js';
import { repoRoot, startNode, stop } from './support/processes.js';

/** The commit issue 31's guard rails compare with. */
const DEFAULT_BASELINE = '020afbd';
/** Now's p99 and CPU per firing may be at most this many times the baseline's (issue 31). */
const GUARD_RATIO = 1.25;
/** The seed of Postgres's `random()` for the seeding transaction: both databases get the same rows. */
const SEED = 0.31;

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MB`;
const fmt = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : '-');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a variant needs of its own code in this process: its database layer and migrations, to migrate and seed. */
interface AlertsCode {
  openDatabase: typeof openDatabase;
  migrations: typeof migrations;
}

async function baselineCode(build: BaselineBuild): Promise<AlertsCode> {
  const platform = await build.importDist<Partial<AlertsCode>>('platform', 'index');
  const own = await build.importDist<Partial<AlertsCode>>('services/alerts', 'migrations/index');
  if (!platform.openDatabase || !own.migrations) throw new Error(`baseline ${build.sha.slice(0, 7)}: no openDatabase in platform or no migrations in services/alerts`);
  return { openDatabase: platform.openDatabase, migrations: own.migrations };
}

type BenchDb = Pick<Db, 'query' | 'transaction' | 'close'>;

interface Variant {
  name: 'now' | 'baseline';
  /** The tree whose `services/alerts/dist/main.js` runs. */
  root: string;
  dbName: string;
  url: string;
  db: BenchDb;
  prefix: string;
  bus?: Bus;
  child?: ReturnType<typeof startNode>;
  observer?: Observer;
  scanner?: FullScanner;
  /** Every measured firing's latency (ms), the measured runs' CPU (ms) and firings. */
  latencies: number[];
  cpuMs: number;
  firings: number;
  batches: BatchLatency[];
}

interface BatchResult {
  scan: FullScanResult;
  latencies: number[];
  same: boolean;
  cpu: Record<string, number>;
  windowMs: number;
}

export async function run(args: string[]): Promise<void> {
  const { ref, rest } = baselineRefArg(args, DEFAULT_BASELINE);
  const total = numberArg(rest, 'notifications', 1_000_000);
  const assets = numberArg(rest, 'assets', 3000);
  const runs = numberArg(rest, 'runs', 3);
  /** Largest move of an asset's 24h change per batch, in percentage points (uniform ±). */
  const move = numberArg(rest, 'move', rest.includes('--stress') ? 0.5 : 0.1);
  /** `--gap <s>`: idle this long before each measured publish (a service gets a batch a minute; default 0). */
  const gapMs = numberArg(rest, 'gap', 0) * 1000;
  /** `--warmup-runs N` (default 6; none with `--no-warmup`, which also skips the batch of stored rates). */
  const warmupRuns = rest.includes('--no-warmup') ? 0 : numberArg(rest, 'warmup-runs', 6);
  const random = rest.includes('--batch-seed') ? seededRandom(numberArg(rest, 'batch-seed', 1)) : Math.random;
  /** `--perf-ctl <fifo>`: writes `enable` / `disable` there around each measured batch, for `perf record --control fifo:<fifo> -D -1`. */
  const perfCtl = rest.includes('--perf-ctl') ? rest[rest.indexOf('--perf-ctl') + 1] : undefined;
  const perf = (cmd: 'enable' | 'disable') => perfCtl && appendFileSync(perfCtl, `${cmd}\n`);

  const observability = rest.includes('--observability');
  const baseline = observability ? undefined : prepareBaseline(ref);
  const guardRatio = observability ? 1.05 : GUARD_RATIO;
  let obs: Observability | undefined;
  const logger = createLogger('bench-alerts', 'warn');
  const natsUrl = testNatsUrl();
  const marketTz = 'Europe/Moscow';
  const admin = new pg.Client({ connectionString: testPostgresUrl(), application_name: 'bench-alerts' });
  await admin.connect();
  const variants: Variant[] = [];
  try {
    if (baseline) {
      console.log(`baseline: ${ref} (commit ${baseline.sha.slice(0, 12)}), built in ${baseline.root}`);
      if (baseline.lockDifferences.length) console.log(`  its lock file pins other versions than installed here; it runs on this tree's: ${baseline.lockDifferences.join('; ')}`);
    } else {
      obs = await startObservability();
      console.log('observability: [now] this build with metrics (scraped every 1 s) and tracing (OTLP to a local receiver) on; [baseline] this build with both off');
    }
    for (const [name, root, code] of [
      ['now', repoRoot, { openDatabase, migrations }],
      ['baseline', baseline?.root ?? repoRoot, baseline ? await baselineCode(baseline) : { openDatabase, migrations }],
    ] as const) {
      if (!existsSync(join(root, 'services/alerts/dist/main.js'))) throw new Error(`${name}: ${root}services/alerts/dist/main.js is not built`);
      const dbName = uniqueName(`bench_alerts_${name}`);
      const url = testPostgresUrl(dbName);
      const db = await code.openDatabase({ url, migrations: code.migrations, logger, poolMax: 2 });
      variants.push({ name, root, dbName, url, db, prefix: `${uniqueName(`bench_alerts_${name}`)}.`, latencies: [], cpuMs: 0, firings: 0, batches: [] });
    }
    const [nowV] = variants as [Variant, Variant];

    // --- seed, before the services start: each loads its candidate index at boot --------------------------
    const now = new Date();
    for (const v of variants) {
      const t0 = performance.now();
      const paid = await seed(v.db, { total, assets, now });
      console.log(`[${v.name}] seeded ${total} notifications over ${assets} assets in ${((performance.now() - t0) / 1000).toFixed(1)} s${paid ? `; paid access recorded for its ${paid} users` : ' (no paid_access table)'}`);
    }
    const fingerprints = await Promise.all(variants.map((v) => fingerprint(v.db)));
    if (fingerprints[0] !== fingerprints[1]) throw new Error(`the seeded databases differ: ${fingerprints.join(' vs ')}`);

    // --- the services, each with its subscriber and full scanner -------------------------------------------
    for (const v of variants) {
      v.bus = await connectBus({ natsUrl, name: `bench-alerts-${v.name}`, prefix: v.prefix });
      const t0 = performance.now();
      const observed = obs && v.name === 'now' ? obs.envFor(4250 + Math.floor(Math.random() * 50)) : {};
      v.child = startNode(
        join(v.root, 'services/alerts/dist/main.js'),
        { ALERTS_DATABASE_URL: v.url, NATS_URL: natsUrl, BUS_PREFIX: v.prefix, ALERTS_JOBS_ENABLED: 'false', MARKET_TZ: marketTz, ...observed },
        `alerts ${v.name}`,
      );
      await consuming(v);
      console.log(`[${v.name}] service started (candidate index loaded) in ${((performance.now() - t0) / 1000).toFixed(1)} s, pid ${v.child.pid}, rss ${mb(rssOf(v.child.pid!))}`);
      v.observer = await startObserver(natsUrl, busSubject(v.prefix, eventSubject('alerts', 'NotificationFired')));
      v.scanner = startFullScanner(v.url);
    }

    const publish = async (v: Variant, rates: RateChange[]) => {
      const event: BusEvent<RatesUpdatedV1> = { id: randomUUID(), type: MarketEventTypes.RatesUpdated, streamName: 'rates-share', streamPosition: 0, recordedAt: new Date().toISOString(), data: { version: 1, source: 'bench', rates }, metadata: {} };
      await v.bus!.js.publish(busSubject(v.prefix, eventSubject('market', MarketEventTypes.RatesUpdated)), JSON.stringify(event), { msgID: event.id });
      return event.id;
    };

    if (warmupRuns > 0) {
      // A running service has evaluated a batch a minute before: one batch of the stored rates, unchanged but
      // newer, first (not measured), so the runs do not pay for the first event of a process. It fires what had
      // come out of its cooldown meanwhile, and ~1,000 notifications created for it that fire at once, so the
      // firing code has run too; they are deleted before the measured runs.
      // `rate` is numeric (text) since migration 0012, a double before: a number in the event either way.
      const current = await nowV.db.query<{ asset_id: string; ticker: string; rate: string | number; change_24h: number }>("select asset_id::text, ticker, rate, change_24h from latest_rates where asset_type = 'share' order by asset_id");
      const asOf = new Date().toISOString();
      const rates: RateChange[] = current.map((c) => ({ assetType: 'share', assetId: Number(c.asset_id), ticker: c.ticker, currency: 'RUB', rate: Number(c.rate), priceChangePercentage24h: c.change_24h, asOf }));
      for (const v of variants) {
        const warmups = await seedWarmupNotifications(v.db, now);
        await v.observer!.reset();
        const t0 = performance.now();
        await processed(v, await publish(v, rates));
        const ms = performance.now() - t0;
        const fired = await v.observer!.collect(0);
        console.log(`[${v.name}] warm-up batch (stored rates, unchanged; ${warmups} warm-up notifications): ${fired.length} NotificationFired, processed in ${ms.toFixed(0)} ms`);
        await v.db.query("delete from notification_firings where user_id like 'warmup-%'");
        await v.db.query("delete from notifications where user_id like 'warmup-%'");
      }
    }

    /** One batch through one variant: its full scan, then the event path, timed and checked against the scan. */
    const batch = async (v: Variant, rates: RateChange[], asOf: Date, measured: boolean): Promise<BatchResult> => {
      const scan = await v.scanner!.scan(rates, { now: asOf, maxRateAgeMs: 3_600_000, marketTz }, asOf);
      await v.observer!.reset();
      if (gapMs > 0 && measured) await sleep(gapMs);
      if (measured) perf('enable');
      const groups = await cpuGroups(admin, v);
      const cpu0 = readCpu(groups);
      const t0 = performance.now();
      const published = process.hrtime.bigint();
      const eventId = await publish(v, rates);
      // Read as soon as the expected count arrived (within the observer's 2 ms poll).
      await v.observer!.collect(scan.fired.size, 120_000, 0);
      const cpu = cpuSpent(cpu0, readCpu(mergeGroups(groups, await cpuGroups(admin, v))));
      const windowMs = performance.now() - t0;
      if (measured) perf('disable');
      // Done with the batch (its rates stored with its inbox row), then any NotificationFired beyond the expected.
      await processed(v, eventId);
      const latencies = (await v.observer!.collect(0)).map((at) => Number(at - published) / 1e6).sort((a, b) => a - b);
      const got = await v.db.query<{ notification_id: string }>('select notification_id::text from notification_firings where fired_at >= $1', [asOf]);
      const same = got.length === scan.fired.size && got.every((g) => scan.fired.has(Number(g.notification_id)));
      return { scan, latencies, same, cpu, windowMs };
    };

    for (let i = 1; i <= warmupRuns + runs; i++) {
      const r = i - warmupRuns;
      const measured = r >= 1;
      // The batch: every asset's change moves by up to ±`move` percentage points (the databases hold the same rates).
      const current = await nowV.db.query<{ asset_id: string; ticker: string; change_24h: number }>("select asset_id::text, ticker, change_24h from latest_rates where asset_type = 'share' order by asset_id");
      const asOf = new Date();
      const rates: RateChange[] = current.map((c) => {
        const c1 = Math.round((c.change_24h + (random() - 0.5) * 2 * move) * 1e4) / 1e4;
        return { assetType: 'share', assetId: Number(c.asset_id), ticker: c.ticker, currency: 'RUB', rate: Math.round(100 * (1 + c1 / 100) * 1e4) / 1e4, priceChangePercentage24h: c1, asOf: asOf.toISOString() };
      });
      const results = new Map<Variant, BatchResult>();
      // Alternate which variant goes first, so both see the same machine.
      for (const v of i % 2 ? [...variants].reverse() : variants) results.set(v, await batch(v, rates, asOf, measured));

      console.log(`\n${measured ? `run ${r}` : `warm-up run ${i} of ${warmupRuns}`}: ${rates.length} rates`);
      for (const v of variants) {
        const { scan, latencies, same, cpu, windowMs } = results.get(v)!;
        const cpuTotal = Object.values(cpu).reduce((a, b) => a + b, 0);
        const p99 = pct(latencies, 99);
        console.log(
          `  ${v.name.padEnd(9)} ${latencies.length} NotificationFired (full scan expects ${scan.fired.size}; same notifications: ${same ? 'yes' : 'NO'})   ` +
            `publish → NotificationFired p50 ${fmt(pct(latencies, 50))}   p99 ${fmt(p99)}   max ${fmt(latencies.at(-1) ?? NaN)}   rss ${mb(rssOf(v.child!.pid!))}`,
        );
        console.log(
          `  ${''.padEnd(9)} CPU from the publish to the last NotificationFired (${windowMs.toFixed(0)} ms): ${Object.entries(cpu).map(([k, ms]) => `${k} ${ms.toFixed(0)}`).join(', ')}; ` +
            `${cpuTotal.toFixed(0)} ms in all${latencies.length > 0 ? `, ${((cpuTotal * 1000) / latencies.length).toFixed(0)} µs a firing` : ''}`,
        );
        if (measured) {
          v.latencies.push(...latencies);
          v.cpuMs += cpuTotal;
          v.firings += latencies.length;
          v.batches.push({ firings: latencies.length, p99Ms: p99 });
        }
      }
      const scan = results.get(nowV)!.scan;
      console.log(`  full scan [now]: read ${scan.readMs.toFixed(0)} ms + evaluate ${scan.evalMs.toFixed(0)} ms = ${(scan.readMs + scan.evalMs).toFixed(0)} ms for ${scan.evaluated} notifications (writes nothing)`);
    }

    if (runs > 0) {
      const [now_, base] = variants as [Variant, Variant];
      for (const v of variants) v.latencies.sort((a, b) => a - b);
      console.log(`\n${runs} measured runs, the same batches for both: ${now_.firings} firings [now], ${base.firings} [baseline]`);
      if (now_.firings === 0 || base.firings === 0) {
        console.log('no firings to compare (a larger --move or more --notifications fires some)');
      } else {
        const rows: [string, string, number, number][] = [
          ['p99', 'p99 publish → NotificationFired, over all measured firings (ms)', pct(now_.latencies, 99), pct(base.latencies, 99)],
          ['CPU per firing', 'CPU per firing, all processes listed (µs)', (now_.cpuMs * 1000) / now_.firings, (base.cpuMs * 1000) / base.firings],
        ];
        console.log(`${'figure'.padEnd(66)}${'now'.padStart(10)}${'baseline'.padStart(10)}${'now/base'.padStart(10)}`);
        for (const [, figure, a, b] of rows) console.log(`${figure.padEnd(66)}${a.toFixed(1).padStart(10)}${b.toFixed(1).padStart(10)}${`${(a / b).toFixed(2)}×`.padStart(10)}`);
        for (const [name, , a, b] of rows) console.log(`${name} now / baseline ${(a / b).toFixed(2)}: guard rail ≤ ${guardRatio} → ${a / b <= guardRatio ? 'met' : 'NOT met'}`);
        if (obs) console.log(`observability: ${JSON.stringify(await obs.status())}`);
      }
      // The issue's target, p99 ≤ 200 ms, over the measured batches by size.
      for (const v of variants) console.log(`[${v.name}] ${formatLatencySummary(summariseLatencies(v.batches, 200))}`);
    }
  } finally {
    for (const v of variants) {
      v.observer?.close();
      v.scanner?.close();
      if (v.child) await stop(v.child);
      if (v.bus) {
        for (const ctx of ['market', 'alerts', 'portfolios', 'billing'] as const) await v.bus.jsm.streams.delete(streamNameOf(v.bus, ctx)).catch(() => undefined);
        await v.bus.close();
      }
      await v.db.close();
      if (args.includes('--keep')) console.log(`kept database [${v.name}] ${v.url}`);
      else await admin.query(`drop database if exists "${v.dbName}" with (force)`);
    }
    await admin.end();
    await obs?.close();
  }
}

/**
 * The notifications, memberships and rates, in one transaction whose `random()` starts from `SEED`: the same
 * statements on two databases migrated alike give the same rows. Returns the users given paid access (0 where
 * the schema has no `paid_access`).
 */
async function seed(db: BenchDb, { total, assets, now }: { total: number; assets: number; now: Date }): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query(`select setseed(${SEED})`);
    // Bulk seeding: the candidate index is loaded at the service's start instead of following a million changes.
    await tx.query('alter table notifications disable trigger user');
    await tx.query('alter table memberships disable trigger user');
    await tx.query(
      `create table bench_assets as
       select i as id, ('T' || i) as ticker,
              -- |24h change| ~ exponential, mean 0.7 %, either sign
              (case when random() < 0.5 then -1 else 1 end) * (-0.7 * ln(1 - random())) as c0
       from generate_series(1, $1::int) i`,
      [assets],
    );
    await tx.query(
      `insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at)
       select 'share', id, ticker, 'RUB', 100 * (1 + c0 / 100), c0, $1, $1 from bench_assets`,
      [now],
    );
    await tx.query(`insert into assets (asset_type, asset_id, ticker, name) select 'share', id, ticker, 'Asset ' || ticker from bench_assets`);
    // Skew: asset = 1 + floor(n * u^3): the first few percent of assets carry most notifications.
    const skewed = `(1 + floor($2::int * power(random(), 3)))::int`;
    const lastTriggered = new Date(now.getTime() - 61 * 60_000);
    const targets = Math.floor(total * 0.5);
    const changes = Math.floor(total * 0.4);
    const groups = total - targets - changes;
    await tx.query(
      `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, created_at, updated_at)
       select 'u' || (g % 200000), 2, 'asset', a.id, 'share', case when up then '>=' else '<=' end, t, t, null, $3, $3
       from (select g, ${skewed} as aid, random() < 0.5 as up, 0.005 + random() * 0.2 as gap from generate_series(1, $1::int) g) s
       join bench_assets a on a.id = s.aid
       cross join lateral (select 100 * (1 + a.c0 / 100) * (case when s.up then 1 + s.gap else 1 - s.gap end) as t) tt`,
      [targets, assets, now],
    );
    await tx.query(
      `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes, last_triggered_at, created_at, updated_at)
       select 'u' || (g % 200000), 8, 'asset', a.id, 'share', '>=', v, v * (floor(abs(a.c0) / v) + 1), 60,
              case when abs(a.c0) >= v then $3::timestamptz else null end, $4, $4
       from (select g, ${skewed} as aid, (array[1, 2, 3, 5, 10])[1 + floor(random() * 5)::int] as v from generate_series(1, $1::int) g) s
       join bench_assets a on a.id = s.aid`,
      [changes, assets, lastTriggered, now],
    );
    const portfolios = Math.max(1, Math.floor(groups / 2));
    await tx.query(
      `insert into memberships (target_type, target_id, asset_type, asset_id, user_id)
       select distinct 'portfolio', p, 'share', ${skewed}, 'u' || p from generate_series(1, $1::int) p, generate_series(1, 8) k`,
      [portfolios, assets],
    );
    await tx.query(
      `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, target_name, operator, value, initial_value, cooldown_minutes, last_triggered_at, created_at, updated_at)
       select 'u' || p, 8, 'portfolio', p, null, 'Portfolio ' || p, '>=', v, v * (floor(m.top / v) + 1), 60,
              case when m.top >= v then $3::timestamptz else null end, $4, $4
       from (select g, 1 + (g % $2::int) as p, (array[1, 2, 3, 5, 10])[1 + floor(random() * 5)::int] as v from generate_series(1, $1::int) g) s
       join lateral (select max(abs(a.c0)) as top from memberships mm join bench_assets a on a.id = mm.asset_id
                     where mm.target_type = 'portfolio' and mm.target_id = s.p) m on true`,
      [groups, portfolios, lastTriggered, now],
    );
    await tx.query('alter table notifications enable trigger user');
    await tx.query('alter table memberships enable trigger user');
    // After every `random()`: the rows above are the same with or without this table.
    const [{ has } = { has: false }] = await tx.query<{ has: boolean }>("select to_regclass('paid_access') is not null as has");
    let paid = 0;
    if (has) {
      const rows = await tx.query<{ n: number }>(
        `with p as (insert into paid_access (user_id, paid_until, asked_at) select distinct user_id, $1::timestamptz + interval '30 days', $1 from notifications returning 1)
         select count(*)::int as n from p`,
        [now],
      );
      paid = rows[0]?.n ?? 0;
    }
    await tx.query('analyze');
    return paid;
  });
}

/**
 * A summary of the seeded rows, to check that both databases got the same. Prices are summed as numeric: a
 * baseline before migration 0012 stores the seeded doubles, now stores them cast to numeric (the same cast).
 */
async function fingerprint(db: BenchDb): Promise<string> {
  const [row] = await db.query<{ f: string }>(
    `select concat_ws(' ', (select count(*) from notifications), (select sum(value::numeric)::numeric(30, 6) from notifications),
       (select sum(initial_value::numeric)::numeric(30, 6) from notifications), (select sum(targetable_id) from notifications),
       (select count(last_triggered_at) from notifications), (select count(*) from memberships), (select sum(asset_id) from memberships),
       (select sum(change_24h)::numeric(30, 6) from latest_rates)) as f`,
  );
  return row?.f ?? '';
}

/** Waits until the variant's service pulls from its RatesUpdated consumer (it loads its index before creating it). */
async function consuming(v: Variant): Promise<void> {
  const stream = streamNameOf(v.bus!, 'market');
  const durable = busName(v.prefix, RATES_UPDATED_DURABLE);
  const until = Date.now() + 15 * 60_000;
  while (Date.now() < until) {
    if (v.child!.exitCode !== null) throw new Error(`[${v.name}] the alerts service exited (${v.child!.exitCode}):\n${v.child!.output.join('')}`);
    const info = await v.bus!.jsm.consumers.info(stream, durable).catch(() => undefined);
    if (info && info.num_waiting > 0) return;
    await sleep(100);
  }
  throw new Error(`[${v.name}] the alerts service did not start consuming RatesUpdated:\n${v.child!.output.join('')}`);
}

/** Waits until the service committed the event (its inbox row, written with the batch's rates). */
async function processed(v: Variant, eventId: string): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    const rows = await v.db.query('select 1 from es_inbox where consumer = $1 and message_id = $2', [RATES_UPDATED_DURABLE, eventId]);
    if (rows.length > 0) return;
    if (v.child!.exitCode !== null) throw new Error(`[${v.name}] the alerts service exited (${v.child!.exitCode}):\n${v.child!.output.join('')}`);
    await sleep(10);
  }
  throw new Error(`[${v.name}] event ${eventId} not processed within 120 s`);
}

/**
 * What a batch's CPU time is summed over: the service's threads, the Postgres backends of its database (not
 * those of other databases on the server) with Postgres's background processes (WAL writer, checkpointer, ...),
 * nats-server and the subscriber. Listed before and after: a backend started meanwhile counts with all its time.
 */
async function cpuGroups(admin: pg.Client, v: Variant): Promise<CpuGroups> {
  const own = ownThreads(v.child!.pid!);
  const { rows } = await admin.query<{ pid: number }>("select pid from pg_stat_activity where datname = $1 or (datname is null and backend_type <> 'client backend')", [v.dbName]);
  return { 'alerts thread': own.main, 'its other threads': own.others, Postgres: rows.map((r) => String(r.pid)), 'nats-server': pidsNamed('nats-server'), observer: [String(v.observer!.pid)] };
}

/** Both listings' entries, once each. */
function mergeGroups(a: CpuGroups, b: CpuGroups): CpuGroups {
  return Object.fromEntries(Object.keys(a).map((k) => [k, [...new Set([...(a[k] ?? []), ...(b[k] ?? [])])]]));
}

function rssOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Notifications of warm-up users that the stored rates fire at once: 500 price-targets already reached, 300
 * price-changes of assets whose |24h change| is at least 1 %, 200 price-changes of portfolios (threshold 1 %),
 * on assets and portfolios spread over all (not the most popular first). Created like any (their triggers tell
 * the candidate index). Returns how many.
 */
async function seedWarmupNotifications(db: BenchDb, now: Date): Promise<number> {
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
