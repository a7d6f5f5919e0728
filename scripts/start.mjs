#!/usr/bin/env node
// `npm start`: checks Postgres and NATS (starting deploy/compose.yaml where Docker exists), builds,
// starts every service and the gateway with prefixed logs, prints the URLs, and stops all on Ctrl-C.
// Each service creates and migrates its own database and loads its demo data once.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import readline from 'node:readline';

const root = new URL('..', import.meta.url).pathname;
const env = { ...process.env };
env.NODE_ENV ??= 'development';
const dbUrl = new URL(env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
const natsUrl = new URL((env.NATS_URL || 'nats://127.0.0.1:4222').split(',')[0]);
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
  const natsHost = natsUrl.hostname || '127.0.0.1';
  const natsPort = natsUrl.port || 4222;
  let pgOk = await reachable(pgHost, pgPort);
  let natsOk = await reachable(natsHost, natsPort);
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
      natsOk ||= await reachable(natsHost, natsPort);
    }
    if (pgOk && natsOk) return;
  }
  console.error('[start] cannot start: required infrastructure is not reachable.');
  if (!pgOk) console.error(`  - PostgreSQL at ${pgHost}:${pgPort} (set DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/postgres)`);
  if (!natsOk) console.error(`  - NATS with JetStream at ${natsHost}:${natsPort} (set NATS_URL, e.g. nats://127.0.0.1:4222; run nats-server -js)`);
  if (docker.status !== 0) console.error('  Docker is not available either, so deploy/compose.yaml could not be started for you.');
  process.exit(1);
}

function build() {
  const r = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const colours = [36, 35, 33, 32, 34, 31];
const children = new Map();

function startService(name, i) {
  const entry = join(root, 'services', name, 'dist', 'main.js');
  const child = spawn(process.execPath, ['--enable-source-maps', entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const tag = `\u001b[${colours[i % colours.length]}m[${name}]\u001b[0m`;
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${tag} ${line}\n`));
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      console.error(`[start] ${name} exited (${signal ?? code}); stopping everything`);
      stop(1);
    }
  });
  children.set(name, child);
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log('\n[start] stopping services...');
  for (const child of children.values()) child.kill('SIGTERM');
  const deadline = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    process.exit(code);
  }, 10_000);
  const check = setInterval(() => {
    if (children.size === 0) {
      clearInterval(check);
      clearTimeout(deadline);
      console.log('[start] stopped');
      process.exit(code);
    }
  }, 100);
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

await ensureInfrastructure();
build();
const services = readdirSync(join(root, 'services'))
  .filter((d) => existsSync(join(root, 'services', d, 'src', 'main.ts')))
  .sort((a, b) => (a === 'gateway') - (b === 'gateway') || a.localeCompare(b));
env.READY_SERVICES ??= services.filter((s) => s !== 'gateway').join(',');
services.forEach(startService);

// Tell the user where things are once the gateway reports ready.
const started = Date.now();
const poll = setInterval(async () => {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ready`);
    if (res.ok) {
      clearInterval(poll);
      console.log(`\n[start] ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${services.join(', ')}`);
      console.log(`  API:      http://localhost:${port}/api/public/shares?sort=dividend_yield&direction=desc`);
      console.log(`  OpenAPI:  http://localhost:${port}/api/docs`);
      console.log(`  Health:   http://localhost:${port}/health  ·  http://localhost:${port}/ready`);
      console.log('  Token:    npm run token -- <userId>');
      console.log('  Ctrl-C stops everything.\n');
    }
  } catch {
    /* not up yet */
  }
  if (Date.now() - started > 120_000) {
    clearInterval(poll);
    console.error('[start] the gateway did not report ready within 2 minutes; see the logs above');
  }
}, 500);
