/**
 * `npm run bench -- screener [--duration 10] [--connections 50] [--rounds 2] [--cache-ttl 1000]`
 *
 * Requests per second and p50/p99 latency of `GET /api/public/shares` through the whole stack
 * (gateway → NATS → screener → Postgres, each its own process) against a plain Fastify + pg process
 * running the same SQL on the same database, side by side in one run, alternating rounds so both see
 * the same machine noise. Prints the ratio.
 */
import autocannon from 'autocannon';
import { connectBus, ensureEventStream } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { numberArg } from './support/args.js';
import { repoRoot, startNode, stop, waitForOk } from './support/processes.js';

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}


async function load(url: string, connections: number, duration: number): Promise<Figures> {
  const r = await autocannon({ url, connections, duration });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

const fmt = (f: Figures) =>
  `${f.rps.toFixed(0).padStart(7)} req/s   p50 ${f.p50.toFixed(1).padStart(6)} ms   p99 ${f.p99.toFixed(1).padStart(6)} ms${f.errors || f.non2xx ? `   (errors ${f.errors}, non-2xx ${f.non2xx})` : ''}`;

export async function run(args: string[]): Promise<void> {
  const duration = numberArg(args, 'duration', 10);
  const connections = numberArg(args, 'connections', 50);
  const rounds = numberArg(args, 'rounds', 2);
  // The screener's page cache TTL (`--cache-ttl 0`: identical concurrent requests still share one query).
  const cacheTtl = numberArg(args, 'cache-ttl', 1000);
  const db = await createTestDatabase('bench_screener');
  const prefix = `${uniqueName('bench')}.`;
  const gatewayPort = String(3900 + Math.floor(Math.random() * 50));
  const plainPort = String(3950 + Math.floor(Math.random() * 50));
  const common = { BUS_PREFIX: prefix, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', JOBS_ENABLED: 'false' };
  const screener = startNode(`${repoRoot}services/screener/dist/main.js`, { ...common, SCREENER_DATABASE_URL: db.url, DEMO_DATA: 'true', SCREENER_CACHE_TTL_MS: String(cacheTtl) }, 'screener');
  const gateway = startNode(`${repoRoot}services/gateway/dist/main.js`, { ...common, PORT: gatewayPort, READY_SERVICES: 'screener' }, 'gateway');
  const plain = startNode(`${repoRoot}bench/dist/baseline/plain-screener.server.js`, { PORT: plainPort, DATABASE_URL: db.url }, 'plain');
  try {
    await waitForOk(`http://127.0.0.1:${gatewayPort}/ready`);
    await waitForOk(`http://127.0.0.1:${plainPort}/health`);
    const paths = ['/api/public/shares', '/api/public/shares?sort=dividend_yield&direction=desc&per_page=50'];
    console.log(`${connections} connections, ${duration}s per measurement, ${rounds} alternating rounds, best round kept; screener page cache TTL ${cacheTtl} ms`);
    for (const path of paths) {
      // Same answer from both, or the comparison is meaningless.
      const [a, b] = await Promise.all([
        fetch(`http://127.0.0.1:${gatewayPort}${path}`).then((r) => r.json() as Promise<{ meta: unknown; data: unknown[] }>),
        fetch(`http://127.0.0.1:${plainPort}${path}`).then((r) => r.json() as Promise<{ meta: unknown; data: unknown[] }>),
      ]);
      if (JSON.stringify(a.data) !== JSON.stringify(b.data)) throw new Error(`gateway and plain handler disagree on ${path}`);
      await load(`http://127.0.0.1:${gatewayPort}${path}`, connections, 2); // warm-up
      await load(`http://127.0.0.1:${plainPort}${path}`, connections, 2);
      const stack: Figures[] = [];
      const floor: Figures[] = [];
      for (let i = 0; i < rounds; i++) {
        floor.push(await load(`http://127.0.0.1:${plainPort}${path}`, connections, duration));
        stack.push(await load(`http://127.0.0.1:${gatewayPort}${path}`, connections, duration));
      }
      const best = (xs: Figures[]) => xs.reduce((m, x) => (x.rps > m.rps ? x : m));
      const s = best(stack);
      const f = best(floor);
      console.log(`\nGET ${path} (${a.data.length} rows)`);
      console.log(`  plain fastify + pg : ${fmt(f)}`);
      console.log(`  gateway → screener : ${fmt(s)}`);
      console.log(`  ratio (stack/plain): ${(s.rps / f.rps).toFixed(2)} of the throughput; target ≥ 0.50 and p99 < 25 ms → ${s.rps / f.rps >= 0.5 && s.p99 < 25 ? 'met' : 'NOT met'}`);
    }
  } finally {
    await Promise.all([stop(gateway), stop(screener), stop(plain)]);
    await db.drop();
    // The services created this run's streams; leave nothing behind on the shared NATS.
    const bus = await connectBus({ natsUrl: testNatsUrl(), name: 'bench-cleanup', prefix });
    for (const ctx of ['market', 'portfolios'] as const) {
      const name = await ensureEventStream(bus, ctx);
      await bus.jsm.streams.delete(name).catch(() => undefined);
    }
    await bus.close();
  }
}
