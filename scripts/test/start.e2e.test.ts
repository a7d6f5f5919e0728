/**
 * `npm start` as a newcomer and a process supervisor see it: the real script on a free port, its own bus
 * prefix and fresh databases (never the default `invest_*` ones or port 3000), no provider URLs set. It must
 * run the demo market (a provider job records a RatesUpdated), log no error line, and stop with
 * status 0, leaving no process behind, on a signal sent to npm or to start.mjs itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/** Services that own a database (they have migrations). */
const dbServices = readdirSync(join(root, 'services')).filter((s) => existsSync(join(root, 'services', s, 'src', 'migrations')));

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

interface Stack {
  child: ChildProcess;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the command in its own process group, as a supervisor does, collecting every output line. */
function launch(cmd: string, args: string[], env: NodeJS.ProcessEnv): Stack {
  const child = spawn(cmd, args, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const s of [child.stdout!, child.stderr!]) {
    let rest = '';
    s.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop()!;
      lines.push(...parts);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, lines, exited };
}

async function until<T>(what: string, ms: number, probe: () => T | undefined | Promise<T | undefined>, stack: Stack): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what} not seen within ${ms / 1000} s; output:\n${stack.lines.slice(-40).join('\n')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** True while any process of the group still exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Lines a newcomer would read as failure: pino error/fatal, npm errors, a service that died. */
const errorLines = (lines: string[]) =>
  lines.filter((l) => /"level":\s*("error"|"fatal"|50|60)\b/.test(l) || /^npm (error|ERR!)/.test(l) || /\[start\].*(exited|cannot|did not|failed)/.test(l));

describe('npm start', () => {
  const busPrefix = uniqueName('start');
  const drops: (() => Promise<void>)[] = [];
  const stacks: Stack[] = [];
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    env = { ...process.env, BUS_PREFIX: busPrefix, NATS_URL: testNatsUrl() };
    // A first start: no provider URLs, not under test.
    for (const v of ['NODE_ENV', 'MOEX_ISS_URL', 'COINGECKO_URL', 'DEMO_PROVIDERS', 'LOG_LEVEL']) delete env[v];
    for (const service of dbServices) {
      const db = await createTestDatabase(`start_${service}`);
      drops.push(db.drop);
      env[`${service.toUpperCase()}_DATABASE_URL`] = db.url;
    }
  });

  /** Each stack on its own free port: a stack a failed test left behind must not answer for the next one. */
  async function start(how: 'npm' | 'start.mjs'): Promise<Stack> {
    const e = { ...env, PORT: String(await freePort()) };
    const stack = how === 'npm' ? launch('npm', ['start'], e) : launch(process.execPath, [join(root, 'scripts', 'start.mjs')], e);
    stacks.push(stack);
    return stack;
  }

  afterEach(() => {
    for (const s of stacks) if (s.child.pid && groupAlive(s.child.pid)) process.kill(-s.child.pid, 'SIGKILL');
  });

  afterAll(async () => {
    for (const drop of drops) await drop();
  });

  /** Waits for the ready banner, then sends `signal` to `target` and expects everything gone with status 0. */
  async function stopsCleanly(stack: Stack, target: number, signal: NodeJS.Signals) {
    process.kill(target, signal);
    const result = await Promise.race([stack.exited, new Promise((r) => setTimeout(() => r('timeout'), 15_000))]);
    expect(result, stack.lines.slice(-30).join('\n')).toEqual({ code: 0, signal: null });
    await until('every process of the stack gone', 5_000, () => (groupAlive(stack.child.pid!) ? undefined : true), stack);
    expect(stack.lines).toContain('[start] stopped');
  }

  it('runs the demo market with no error line and stops on SIGINT sent to npm', async () => {
    const stack = await start('npm');
    await until('the ready banner', 150_000, () => (stack.lines.some((l) => l.startsWith('[start] ready in')) ? true : undefined), stack);
    // Said once, with how to use the real providers. The banner's lines may come in after its first one.
    await until('the demo market line', 10_000, () => (stack.lines.some((l) => /Demo: +market:/.test(l)) ? true : undefined), stack);
    expect(stack.lines.filter((l) => /Demo: +market: .*MOEX_ISS_URL \/ COINGECKO_URL/.test(l))).toHaveLength(1);

    // The banner names each service's metrics port, and each serves its own metrics there.
    const metricsLine = await until('the metrics line', 10_000, () => stack.lines.find((l) => l.startsWith('  Metrics:')), stack);
    const metricsPorts = Object.fromEntries([...metricsLine.matchAll(/([a-z]+) (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
    expect(Object.keys(metricsPorts).sort(), metricsLine).toEqual(readdirSync(join(root, 'services')).filter((s) => existsSync(join(root, 'services', s, 'src', 'main.ts'))).sort());
    for (const [service, metricsPort] of Object.entries(metricsPorts)) {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(res.status, service).toBe(200);
      expect(await res.text(), service).toContain(`process_cpu_user_seconds_total{service="${service}"}`);
    }

    // A provider job (not the demo data load) recorded rates fetched from the demo market. Read from the
    // screener's event store: the relay to JetStream waits for every older transaction on the Postgres
    // server, which a shared test server may keep busy for a while.
    const screenerDb = new pg.Client({ connectionString: env.SCREENER_DATABASE_URL });
    await screenerDb.connect();
    try {
      const fromProvider = await until(
        'a RatesUpdated from a provider job',
        30_000,
        async () =>
          (
            await screenerDb.query<{ source: string; rates: number }>(
              "select data->>'source' as source, json_array_length(data->'rates') as rates from es_events where type = 'RatesUpdated' and data->>'source' <> 'demo-data' limit 1",
            )
          ).rows[0],
        stack,
      );
      expect(fromProvider.rates).toBeGreaterThan(0);
    } finally {
      await screenerDb.end();
    }

    await stopsCleanly(stack, stack.child.pid!, 'SIGINT');
    expect(errorLines(stack.lines)).toEqual([]);
    // A quiet start: at the default level only warnings, errors and one line a job run that changed something
    // (the demo data load is one): no build progress, mapped routes, requests or "nothing new" runs.
    const chatter = stack.lines.filter((l) => {
      if (/^\[build\]|Mapped \{/.test(l)) return true;
      const json = l.indexOf('{"level"');
      if (json < 0) return false;
      const line = JSON.parse(l.slice(json)) as { level: string; msg: string; changed?: number };
      return line.level === 'info' && !(Number(line.changed) > 0) && line.msg !== 'demo data loaded';
    });
    expect(chatter).toEqual([]);
    // npm's EBADENGINE warnings are for installs; a start with everything installed shows none either.
    expect(stack.lines.filter((l) => l.includes('EBADENGINE'))).toEqual([]);
  }, 240_000);

  // What a supervisor sends to the process it started, when that is start.mjs itself (a second start keeps
  // the data). SIGTERM to npm takes the path of SIGINT to npm above (npm forwards both); a Ctrl-C reaches the
  // whole group, where each service ignores the repeat and the demo providers wait for start.mjs.
  it('stops on SIGTERM sent to start.mjs', async () => {
    const stack = await start('start.mjs');
    await until('the ready banner', 150_000, () => (stack.lines.some((l) => l.startsWith('[start] ready in')) ? true : undefined), stack);
    await stopsCleanly(stack, stack.child.pid!, 'SIGTERM');
    expect(errorLines(stack.lines)).toEqual([]);
  }, 200_000);

  it('refuses a port in use rather than announce another stack as ready', async () => {
    const busy = net.createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    try {
      const stack = launch(process.execPath, [join(root, 'scripts', 'start.mjs')], { ...env, PORT: String((busy.address() as net.AddressInfo).port) });
      stacks.push(stack);
      expect(await stack.exited).toEqual({ code: 1, signal: null });
      expect(stack.lines.join('\n')).toMatch(/port \d+ is in use/);
      expect(stack.lines.some((l) => l.startsWith('[start] ready'))).toBe(false);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });
});
