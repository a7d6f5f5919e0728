#!/usr/bin/env node
// Installs dependencies when they are missing or stale; with `--build`, also compiles when a source changed
// since the last build. Both checks are cheap (a hash of two files, a stat of each source), so a command
// that runs this first (`npm run token`) starts at once when nothing changed.
// Runs on whatever Node launched npm (possibly an old one), so it stays plain JavaScript; the project's own
// Node 24 arrives with the install (`node` package).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import readline from 'node:readline';
import { isBuildFresh } from './build-stamp.mjs';

const root = new URL('..', import.meta.url).pathname;
const pkgFile = join(root, 'package.json');
const lock = join(root, 'package-lock.json');
const stamp = join(root, 'node_modules', '.install-stamp');
// The stamp covers package.json and the lock file; it is taken after the install, which may touch the lock.
const fingerprint = () =>
  createHash('sha256')
    .update(readFileSync(pkgFile))
    .update(existsSync(lock) ? readFileSync(lock) : '')
    .digest('hex');
const wanted = fingerprint();
const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
const nodeBin = join(root, 'node_modules', '.bin', 'node');

if (have !== wanted || !existsSync(nodeBin)) {
  await install();
  writeFileSync(stamp, fingerprint() + '\n');
}

if (process.argv.includes('--build') && !isBuildFresh(root)) {
  // The build runs on the project's Node (it uses APIs an old launcher lacks).
  const r = spawnSync(nodeBin, [join(root, 'scripts', 'build.mjs'), '--quiet', '--backend-only'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

async function install() {
  // `npm install`, not `npm ci`: it installs the locked versions too, and npm 11 (with lock files that
  // record no registry addresses) writes locks without other platforms' optional packages, which
  // `npm ci` then rejects as out of sync.
  const args = ['install', '--no-audit', '--no-fund'];
  console.log(`[setup] installing dependencies: npm ${args.join(' ')}`);
  const projectNode = JSON.parse(readFileSync(pkgFile, 'utf8')).devDependencies?.node;
  if (projectNode && process.versions.node.split('.')[0] !== projectNode.split('.')[0]) {
    console.log(
      `[setup] npm runs on Node ${process.version}; the project runs on its own Node ${projectNode} (the "node" package it installs), ` +
        'so npm\'s "EBADENGINE" warnings about this Node are expected and hidden.',
    );
  }
  // npm prints an EBADENGINE block (five lines) for each package that wants a newer Node than the one running
  // npm: dozens of lines a newcomer reads as failure. Everything else npm says, errors first, passes through.
  const child = spawn('npm', args, { cwd: root, stdio: ['inherit', 'inherit', 'pipe'] });
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    if (!/^npm warn EBADENGINE\b/.test(line)) process.stderr.write(`${line}\n`);
  });
  const code = await new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`[setup] cannot run npm: ${err.message}`);
      resolve(1);
    });
    child.on('close', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
  });
  if (code !== 0) {
    console.error(`[setup] npm install failed (exit ${code}); see npm's messages above`);
    process.exit(code);
  }
}
