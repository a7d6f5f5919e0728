/**
 * `npm run bench -- screener [--duration 10] [--connections 50] [--rounds 2] [--cache-ttl 1000] [--public-cache-ttl 10000]`
 *
 * Requests per second and p50/p99 latency of `GET /api/public/shares`, side by side in one run, alternating
 * rounds so all see the same machine noise:
 * - gateway, cached: anonymous requests, answered from the gateway's public page cache;
 * - gateway, uncached: the same requests with a cookie, which the gateway never answers from its cache, so
 *   through the whole stack (gateway → NATS → screener → Postgres, each its own process);
 * - floor, plain Fastify + pg: one process running the same SQL on the same database;
 * - floor, plain Fastify + cached bytes: one process answering the gateway's own bytes from memory.
 * Prints the throughput ratio of the uncached stack to its floor, and the cached p99 against the target.
 *
 * `--observability` (issue 36, item 6): instead of the floors, a second gateway and screener on their own
 * database and bus prefix with metrics (`METRICS_PORT`, scraped every second) and tracing (OTLP to a local
 * receiver process) on, measured in the same alternating rounds as the first pair with both off, and the ratio;
 * `--sample <0..1>` sets `OTEL_TRACES_SAMPLER_ARG` (default: every trace); `--no-metrics` measures tracing alone.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { connectBus, ensureEventStream } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { numberArg } from './support/args.js';
import { type Observability, startObservability } from './support/observability.js';
import { repoRoot, startNode, stop, waitForOk } from './support/processes.js';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** CPU time of the serving processes per request, µs (Linux); undefined where /proc cannot be read. */
  cpuUs?: number;
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
const totalCpuMs = (pids: (number | undefined)[]) => {
  const all = pids.map(cpuMs);
  return all.some((v) => v === undefined) ? undefined : all.reduce<number>((a, b) => a + b!, 0);
};


/**
 * One measurement; `pids` are the processes that serve it, whose CPU per request is reported too (a figure
 * less sensitive than latency to what else runs on a shared machine).
 */
async function load(url: string, connections: number, duration: number, headers: Record<string, string> = {}, pids: (number | undefined)[] = []): Promise<Figures> {
  const before = totalCpuMs(pids);
  const r = await autocannon({ url, connections, duration, headers });
  const after = totalCpuMs(pids);
  const cpuUs = before !== undefined && after !== undefined && r.requests.total > 0 && pids.length ? ((after - before) * 1000) / r.requests.total : undefined;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, ...(cpuUs !== undefined ? { cpuUs } : {}) };
}

const fmt = (f: Figures) =>
  `${f.rps.toFixed(0).padStart(7)} req/s   p50 ${f.p50.toFixed(1).padStart(6)} ms   p99 ${f.p99.toFixed(1).padStart(6)} ms${f.cpuUs !== undefined ? `   cpu ${f.cpuUs.toFixed(0).padStart(4)} µs/req` : ''}${f.errors || f.non2xx ? `   (errors ${f.errors}, non-2xx ${f.non2xx})` : ''}`;

export async function run(args: string[]): Promise<void> {
  const duration = numberArg(args, 'duration', 10);
  const connections = numberArg(args, 'connections', 50);
  const rounds = numberArg(args, 'rounds', 2);
  // The screener's page cache TTL (`--cache-ttl 0`: identical concurrent requests still share one query).
  const cacheTtl = numberArg(args, 'cache-ttl', 1000);
  // The gateway's public page cache TTL (`SCREENER_PUBLIC_CACHE_TTL_MS`).
  const publicCacheTtl = numberArg(args, 'public-cache-ttl', 10_000);
  const observability = args.includes('--observability');
  const db = await createTestDatabase('bench_screener');
  const prefix = `${uniqueName('bench')}.`;
  const gatewayPort = String(3900 + Math.floor(Math.random() * 50));
  const plainPort = String(3950 + Math.floor(Math.random() * 25));
  const cachedPort = String(3975 + Math.floor(Math.random() * 25));
  const common = { BUS_PREFIX: prefix, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', JOBS_ENABLED: 'false' };
  const screener = startNode(`${repoRoot}services/screener/dist/main.js`, { ...common, SCREENER_DATABASE_URL: db.url, DEMO_DATA: 'true', SCREENER_CACHE_TTL_MS: String(cacheTtl) }, 'screener');
  const gateway = startNode(
    `${repoRoot}services/gateway/dist/main.js`,
    { ...common, PORT: gatewayPort, READY_SERVICES: 'screener', SCREENER_PUBLIC_CACHE_TTL_MS: String(publicCacheTtl) },
    'gateway',
  );
  const plain = startNode(`${repoRoot}bench/dist/support/plain-screener.server.js`, { PORT: plainPort, DATABASE_URL: db.url }, 'plain');
  const cachedFloor = startNode(`${repoRoot}bench/dist/support/plain-cached.server.js`, { PORT: cachedPort, SOURCE_URL: `http://127.0.0.1:${gatewayPort}` }, 'plain-cached');
  // --observability: the same pair with metrics and tracing on, on a database and bus prefix of its own.
  let obs: { o: Observability; db: Awaited<ReturnType<typeof createTestDatabase>>; prefix: string; port: string; screener: ReturnType<typeof startNode>; gateway: ReturnType<typeof startNode> } | undefined;
  if (observability) {
    const o = await startObservability({ ...(args.includes('--sample') ? { sampleRatio: numberArg(args, 'sample', 1) } : {}), metrics: !args.includes('--no-metrics') });
    const obsDb = await createTestDatabase('bench_screener_obs');
    const obsPrefix = `${uniqueName('bench')}.`;
    const port = String(4100 + Math.floor(Math.random() * 50));
    const metricsPort = 4200 + Math.floor(Math.random() * 50) * 2;
    const oCommon = { ...common, BUS_PREFIX: obsPrefix };
    obs = {
      o,
      db: obsDb,
      prefix: obsPrefix,
      port,
      screener: startNode(`${repoRoot}services/screener/dist/main.js`, { ...oCommon, ...o.envFor(metricsPort), SCREENER_DATABASE_URL: obsDb.url, DEMO_DATA: 'true', SCREENER_CACHE_TTL_MS: String(cacheTtl) }, 'screener-obs'),
      gateway: startNode(
        `${repoRoot}services/gateway/dist/main.js`,
        { ...oCommon, ...o.envFor(metricsPort + 1), PORT: port, READY_SERVICES: 'screener', SCREENER_PUBLIC_CACHE_TTL_MS: String(publicCacheTtl) },
        'gateway-obs',
      ),
    };
  }
  try {
    await waitForOk(`http://127.0.0.1:${gatewayPort}/ready`);
    await waitForOk(`http://127.0.0.1:${plainPort}/health`);
    await waitForOk(`http://127.0.0.1:${cachedPort}/health`);
    if (obs) await waitForOk(`http://127.0.0.1:${obs.port}/ready`);
    const paths = ['/api/public/shares', '/api/public/shares?sort=dividend_yield&direction=desc&per_page=50'];
    console.log(
      `${connections} connections, ${duration}s per measurement, ${rounds} alternating rounds, best round kept; gateway public cache TTL ${publicCacheTtl} ms, screener page cache TTL ${cacheTtl} ms`,
    );
    console.log('cpu: CPU time of the serving Node processes per request (gateway uncached: gateway + screener; Postgres and NATS not counted)');
    const gatewayUrl = (path: string) => `http://127.0.0.1:${gatewayPort}${path}`;
    // A request with a cookie is never answered from the gateway's cache: the whole stack, every time.
    const uncachedHeaders = { cookie: 'bench=uncached' };
    for (const path of paths) {
      // Same answer from all, or the comparison is meaningless; the cached floor and the gateway's cache send the very same bytes.
      const [cachedBody, uncachedBody, plainBody, floorBody] = await Promise.all([
        fetch(gatewayUrl(path)).then((r) => r.text()),
        fetch(gatewayUrl(path), { headers: uncachedHeaders }).then((r) => r.text()),
        fetch(`http://127.0.0.1:${plainPort}${path}`).then((r) => r.text()),
        fetch(`http://127.0.0.1:${cachedPort}${path}`).then((r) => r.text()),
      ]);
      const rows = (JSON.parse(cachedBody) as { data: unknown[] }).data;
      if (uncachedBody !== cachedBody || floorBody !== cachedBody) throw new Error(`the gateway's cached and uncached answers, or the cached floor's, differ on ${path}`);
      if (JSON.stringify((JSON.parse(plainBody) as { data: unknown[] }).data) !== JSON.stringify(rows)) throw new Error(`gateway and plain handler disagree on ${path}`);
      const targets: Record<string, () => Promise<Figures>> = {
        'floor: plain fastify + pg          ': () => load(`http://127.0.0.1:${plainPort}${path}`, connections, duration, {}, [plain.pid]),
        'floor: plain fastify, cached bytes ': () => load(`http://127.0.0.1:${cachedPort}${path}`, connections, duration, {}, [cachedFloor.pid]),
        'gateway, uncached (→ screener → pg)': () => load(gatewayUrl(path), connections, duration, uncachedHeaders, [gateway.pid, screener.pid]),
        'gateway, cached                    ': () => load(gatewayUrl(path), connections, duration, {}, [gateway.pid]),
      };
      if (obs) {
        const o = obs;
        const obsUrl = `http://127.0.0.1:${o.port}${path}`;
        if ((await fetch(obsUrl).then((r) => r.text())) !== cachedBody) throw new Error(`the observed pair answers otherwise on ${path}`);
        await load(obsUrl, connections, 2);
        await load(obsUrl, connections, 2, uncachedHeaders);
        const what = args.includes('--no-metrics') ? 'tracing' : 'metrics + tracing';
        await observabilityRounds(path, rounds, {
          [`uncached, ${what} off`]: () => load(gatewayUrl(path), connections, duration, uncachedHeaders, [gateway.pid, screener.pid]),
          [`uncached, ${what} on `]: () => load(obsUrl, connections, duration, uncachedHeaders, [o.gateway.pid, o.screener.pid]),
          [`cached,   ${what} off`]: () => load(gatewayUrl(path), connections, duration, {}, [gateway.pid]),
          [`cached,   ${what} on `]: () => load(obsUrl, connections, duration, {}, [o.gateway.pid]),
        });
        console.log(`  observability: ${JSON.stringify(await o.o.status())}`);
        continue;
      }
      // Warm-up: JIT, connection pools, prepared statements.
      await load(gatewayUrl(path), connections, 2);
      await load(gatewayUrl(path), connections, 2, uncachedHeaders);
      await load(`http://127.0.0.1:${plainPort}${path}`, connections, 2);
      await load(`http://127.0.0.1:${cachedPort}${path}`, connections, 2);
      const figures: Record<string, Figures[]> = {};
      for (let i = 0; i < rounds; i++) for (const [name, run] of Object.entries(targets)) (figures[name] ??= []).push(await run());
      const best = (xs: Figures[]) => xs.reduce((m, x) => (x.rps > m.rps ? x : m));
      const [plainFloor, cachedFloorFigures, uncached, cached] = Object.values(figures).map(best) as [Figures, Figures, Figures, Figures];
      console.log(`\nGET ${path} (${rows.length} rows, ${Buffer.byteLength(cachedBody)} bytes)`);
      for (const [name, xs] of Object.entries(figures)) console.log(`  ${name}: ${fmt(best(xs))}`);
      console.log(`  uncached stack / plain fastify + pg : ${(uncached.rps / plainFloor.rps).toFixed(2)} of the throughput (target ≥ 0.50)`);
      console.log(`  cached gateway / cached floor       : ${(cached.rps / cachedFloorFigures.rps).toFixed(2)} of the throughput`);
      console.log(`  cached gateway p99 ${cached.p99.toFixed(1)} ms: target < 25 ms at ${connections} connections → ${cached.p99 < 25 ? 'met' : 'NOT met'}`);
    }
  } finally {
    await Promise.all([stop(gateway), stop(screener), stop(plain), stop(cachedFloor), ...(obs ? [stop(obs.gateway), stop(obs.screener)] : [])]);
    await db.drop();
    if (obs) {
      await obs.o.close();
      await obs.db.drop();
      const obsBus = await connectBus({ natsUrl: testNatsUrl(), name: 'bench-cleanup-obs', prefix: obs.prefix });
      for (const ctx of ['market', 'portfolios'] as const) await obsBus.jsm.streams.delete(await ensureEventStream(obsBus, ctx)).catch(() => undefined);
      await obsBus.close();
    }
    // The services created this run's streams; leave nothing behind on the shared NATS.
    const bus = await connectBus({ natsUrl: testNatsUrl(), name: 'bench-cleanup', prefix });
    for (const ctx of ['market', 'portfolios'] as const) {
      const name = await ensureEventStream(bus, ctx);
      await bus.jsm.streams.delete(name).catch(() => undefined);
    }
    await bus.close();
  }
}

/**
 * Each pair (off, on) measured `rounds` times, in alternating order (on first every other round); prints the
 * median of each and on/off of throughput and CPU per request (target: on within 5 % of off).
 */
async function observabilityRounds(path: string, rounds: number, targets: Record<string, () => Promise<Figures>>): Promise<void> {
  const entries = Object.entries(targets);
  const figures: Record<string, Figures[]> = {};
  for (let i = 0; i < rounds; i++) {
    for (let pair = 0; pair < entries.length; pair += 2) {
      const [off, on] = [entries[pair]!, entries[pair + 1]!];
      for (const [name, measure] of i % 2 ? [on, off] : [off, on]) (figures[name] ??= []).push(await measure());
    }
  }
  const median = (xs: Figures[], key: 'rps' | 'cpuUs') => {
    const v = xs.map((x) => x[key] ?? NaN).sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
  };
  console.log(`\nGET ${path}: medians of ${rounds} alternating rounds`);
  for (const [name, xs] of Object.entries(figures)) console.log(`  ${name}: ${median(xs, 'rps').toFixed(0).padStart(7)} req/s   cpu ${median(xs, 'cpuUs').toFixed(0).padStart(4)} µs/req   (rounds: ${xs.map((x) => x.rps.toFixed(0)).join(', ')} req/s)`);
  for (let pair = 0; pair < entries.length; pair += 2) {
    const [off, on] = [figures[entries[pair]![0]]!, figures[entries[pair + 1]![0]]!];
    const rps = median(on, 'rps') / median(off, 'rps');
    const cpu = median(on, 'cpuUs') / median(off, 'cpuUs');
    console.log(`  ${entries[pair]![0].split(',')[0]!.trim()}: on/off throughput ${rps.toFixed(3)}, CPU per request ${cpu.toFixed(3)} (target: within 5 %: ${rps >= 0.95 && cpu <= 1.05 ? 'met' : 'NOT met'})`);
  }
}
