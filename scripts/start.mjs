#!/usr/bin/env node
// `npm start`: checks Postgres and NATS (starting deploy/compose.yaml where Docker exists), builds what
// changed, starts the demo providers in development (scripts/demo-providers.mjs: the demo market unless
// MOEX_ISS_URL / COINGECKO_URL are set), then every service and the gateway with prefixed logs, prints the
// URLs and each service's metrics port, and stops all on Ctrl-C, SIGINT or SIGTERM (what a supervisor
// sends), or when its parent dies.
// Each service creates and migrates its own database and loads its demo data once.
// `npm start` execs this script (package.json), so npm's forwarded signals reach it rather than a shell.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import readline from 'node:readline';

const root = new URL('..', import.meta.url).pathname;
const env = { ...process.env };
env.NODE_ENV ??= 'development';
const dbUrl = new URL(env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
// NATS_URL may list the nodes of a cluster (comma-separated): one that answers is enough to start.
const natsUrls = (env.NATS_URL || 'nats://127.0.0.1:4222')
  .split(',')
  .map((u) => u.trim())
  .filter(Boolean)
  .map((u) => new URL(u.includes('://') ? u : `nats://${u}`));
const port = Number(env.PORT || 3000);

const reachable = (host, p, ms = 1500) =>
  new Promise((resolve) => {
    const s = net.connect({ host, port: Number(p) });
    const done = (ok) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(ms, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });

async function ensureInfrastructure() {
  const pgHost = dbUrl.hostname || '127.0.0.1';
  const pgPort = dbUrl.port || 5432;
  let pgOk = await reachable(pgHost, pgPort);
  const natsReachable = async () => {
    for (const u of natsUrls) if (await reachable(u.hostname || '127.0.0.1', u.port || 4222)) return true;
    return false;
  };
  let natsOk = await natsReachable();
  if (pgOk && natsOk) return;
  const docker = spawnSync('docker', ['info'], { stdio: 'ignore' });
  if (docker.status === 0) {
    const wanted = [!pgOk && 'postgres', !natsOk && 'nats'].filter(Boolean);
    console.log(`[start] starting ${wanted.join(' and ')} with deploy/compose.yaml`);
    const up = spawnSync('docker', ['compose', '-f', join(root, 'deploy/compose.yaml'), 'up', '-d', ...wanted], { stdio: 'inherit' });
    if (up.status !== 0) process.exit(up.status ?? 1);
    for (let i = 0; i < 60 && !(pgOk && natsOk); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      pgOk ||= await reachable(pgHost, pgPort);
      natsOk ||= await natsReachable();
    }
    if (pgOk && natsOk) return;
  }
  console.error('[start] cannot start: required infrastructure is not reachable.');
  if (!pgOk) console.error(`  - PostgreSQL at ${pgHost}:${pgPort} (set DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/postgres)`);
  if (!natsOk) console.error(`  - NATS with JetStream at ${natsUrls.map((u) => u.host).join(', ')} (set NATS_URL, e.g. nats://127.0.0.1:4222; run nats-server -js, or npm run nats:cluster)`);
  if (docker.status !== 0) console.error('  Docker is not available either, so deploy/compose.yaml could not be started for you.');
  process.exit(1);
}

const isFree = (p, host = '127.0.0.1') =>
  new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(p, host, () => srv.close(() => resolve(true)));
  });

/** Another stack on our port would answer our readiness check and be announced as ours. */
async function ensurePortFree() {
  if (await isFree(port, env.HOST || '127.0.0.1')) return;
  console.error(`[start] cannot start: port ${port} is in use (another npm start?). Stop it, or set PORT to a free port.`);
  process.exit(1);
}

const off = (v) => ['false', '0', 'no', 'off'].includes(String(v ?? '').trim().toLowerCase());

/**
 * Each service's METRICS_PORT (Prometheus, GET /metrics): one free port per service, counting up from
 * METRICS_PORT (default 9464), so another stack's ports are skipped. METRICS_PORT=off starts no metrics server.
 */
async function metricsPorts(names) {
  if (off(env.METRICS_PORT)) return {};
  const ports = {};
  let next = Number(env.METRICS_PORT || 9464);
  for (const name of names) {
    while (next === port || !(await isFree(next))) next++;
    ports[name] = next++;
  }
  return ports;
}

/**
 * Development stand-ins for outside providers, in one child process, for whatever provider variables are
 * unset; their values join the services' environment. Production, or DEMO_PROVIDERS=false, starts none.
 */
async function startDemoProviders() {
  if (env.NODE_ENV === 'production' || off(env.DEMO_PROVIDERS)) return;
  const child = spawn(process.execPath, ['--enable-source-maps', join(root, 'scripts', 'demo-providers.mjs')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  track('demo', child, 'demo');
  const ready = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 30_000);
    child.once('message', (m) => {
      clearTimeout(timer);
      resolve(m);
    });
    child.once('exit', () => resolve(undefined));
  });
  if (!ready || ready.type !== 'ready') {
    console.error('[start] the demo providers did not start; see the [demo] lines above');
    stop(1);
    return new Promise(() => {});
  }
  if (ready.started.length === 0) {
    // Every provider variable is set: nothing to stand in for.
    children.delete('demo');
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
    return;
  }
  Object.assign(env, ready.env);
  demo = ready.started;
}

function build() {
  // Quiet unless asked: the build's progress is noise on every start; its errors are printed anyway.
  const quiet = String(env.LOG_LEVEL ?? '').toLowerCase() === 'debug' || String(env.LOG_LEVEL ?? '').toLowerCase() === 'trace' ? [] : ['--quiet'];
  const r = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), ...quiet], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const colours = [36, 35, 33, 32, 34, 31];

const children = new Map();
/** What the demo providers serve (none outside development). */
let demo = [];

/** Prefixes a child's output with its tag and stops everything if it ends on its own. */
function track(name, child, label, colour = 90) {
  const tag = `\u001b[${colour}m[${label}]\u001b[0m`;
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${tag} ${line}\n`));
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`[start] ${name} exited (${signal ?? code}); stopping everything`);
      stop(1);
    } else if (code !== 0 && signal !== 'SIGTERM' && signal !== 'SIGINT') {
      // Ended by the signal itself (it came before the process set up its handlers) is stopped too.
      failedToStop.push(`${name} (${signal ?? code})`);
    }
  });
  children.set(name, child);
}

function startService(name, i) {
  if (stopping) return; // a signal came while the demo providers were starting
  const entry = join(root, 'services', name, 'dist', 'main.js');
  const { METRICS_PORT: _base, ...serviceEnv } = env;
  if (metrics[name]) serviceEnv.METRICS_PORT = String(metrics[name]);
  const child = spawn(process.execPath, ['--enable-source-maps', entry], { env: serviceEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  track(name, child, name, colours[i % colours.length]);
}

let stopping = false;
const failedToStop = [];
/**
 * Stops the services, then the demo providers they may still be calling; exits with `code`, or 1 when
 * something did not stop cleanly (a supervisor should hear about it).
 */
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log('\n[start] stopping services...');
  const services = () => [...children.entries()].filter(([name]) => name !== 'demo');
  for (const [, child] of services()) child.kill('SIGTERM');
  const deadline = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    console.error(`[start] still running after 10 s, killed: ${[...children.keys()].join(', ')}`);
    process.exit(1);
  }, 10_000);
  const check = setInterval(() => {
    if (services().length === 0) children.get('demo')?.kill('SIGTERM');
    if (children.size === 0) {
      clearInterval(check);
      clearTimeout(deadline);
      if (failedToStop.length) console.error(`[start] did not stop cleanly: ${failedToStop.join(', ')}`);
      console.log('[start] stopped');
      process.exit(failedToStop.length ? 1 : code);
    }
  }, 100);
}
// Not SIGHUP: a handler would override `nohup`; a closed terminal is caught by the parent check below.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(0));
// Whatever launched us went away without a word (npm killed with SIGKILL, a closed session): stop, rather
// than leave services holding the port for the next start.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) stop(0);
}, 1000).unref();

await ensureInfrastructure();
await ensurePortFree();
build();
await startDemoProviders();
const services = readdirSync(join(root, 'services'))
  .filter((d) => existsSync(join(root, 'services', d, 'src', 'main.ts')))
  .sort((a, b) => (a === 'gateway') - (b === 'gateway') || a.localeCompare(b));
env.READY_SERVICES ??= services.filter((s) => s !== 'gateway').join(',');
const metrics = await metricsPorts(services);
services.forEach(startService);

// Tell the user where things are once the gateway reports ready.
const started = Date.now();
const poll = setInterval(async () => {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ready`);
    if (res.ok) {
      clearInterval(poll);
      console.log(`\n[start] ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${services.join(', ')}`);
      console.log(`  Web:      http://localhost:${port}/  (screener; sign in at /sign-in with any user id)`);
      console.log(`  API:      http://localhost:${port}/api/public/shares?sort=dividend_yield&direction=desc`);
      console.log(`  OpenAPI:  http://localhost:${port}/api/docs`);
      console.log(`  Health:   http://localhost:${port}/health  ·  http://localhost:${port}/ready`);
      if (Object.keys(metrics).length) {
        console.log(`  Metrics:  http://127.0.0.1:<port>/metrics of ${services.map((s) => `${s} ${metrics[s]}`).join(' · ')}`);
      }
      // Said once, here: which outside providers are stand-ins, and how to use the real ones.
      for (const d of demo) {
        console.log(`  Demo:     ${d.service === 'screener' ? 'market' : d.service}: ${d.description}; set ${d.variables.join(' / ')} for the real ones`);
        if (d.hint) console.log(`            ${d.hint}`);
      }
      console.log('  Token:    npm run token -- <userId>');
      console.log('  Ctrl-C (or SIGINT / SIGTERM to this process or to npm) stops everything.\n');
    }
  } catch {
    /* not up yet */
  }
  if (Date.now() - started > 120_000) {
    clearInterval(poll);
    console.error('[start] the gateway did not report ready within 2 minutes; see the logs above');
  }
}, 500);
