#!/usr/bin/env node
// Installs dependencies when they are missing or stale. Runs on whatever Node launched npm (possibly an
// old one), so it stays plain JavaScript; the project's own Node 24 arrives with the install (`node` package).
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const lock = join(root, 'package-lock.json');
const stamp = join(root, 'node_modules', '.install-stamp');
// The stamp covers package.json and the lock file; it is taken after the install, which may touch the lock.
const fingerprint = () =>
  createHash('sha256')
    .update(readFileSync(join(root, 'package.json')))
    .update(existsSync(lock) ? readFileSync(lock) : '')
    .digest('hex');
const wanted = fingerprint();
const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
const nodeBin = join(root, 'node_modules', '.bin', 'node');

if (have !== wanted || !existsSync(nodeBin)) {
  // `npm install`, not `npm ci`: it installs the locked versions too, and npm 11 (with lock files that
  // record no registry addresses) writes locks without other platforms' optional packages, which
  // `npm ci` then rejects as out of sync.
  const cmd = 'npm install --no-audit --no-fund';
  console.log(`[setup] installing dependencies: ${cmd}`);
  execSync(cmd, { cwd: root, stdio: 'inherit' });
  writeFileSync(stamp, fingerprint() + '\n');
}
