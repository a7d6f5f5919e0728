#!/usr/bin/env node
// Makes sure the system Chromium that the browser tests drive (through playwright-core) is installed:
// Debian's `chromium` package, installed with apt-get when /usr/bin/chromium is missing. Playwright's own
// browser download is never used (no internet beyond the npm registry and Debian mirrors).
// Idempotent: when the binary is there it only checks that it starts. `CHROMIUM_PATH` points at another
// Chromium (macOS, another distribution) and skips the install.
import { spawnSync } from 'node:child_process';
import { aptInstall, isExecutable } from './apt-package.mjs';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** The Chromium executable the browser tests use, installing Debian's package first when it is missing. */
export function ensureChromium({ log = console.log } = {}) {
  const path = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
  if (!isExecutable(path)) {
    if (process.env.CHROMIUM_PATH) throw new Error(`CHROMIUM_PATH=${path} is not an executable file`);
    aptInstall('chromium', { log, tag: '[browser-tests]', missing: 'Chromium is missing and installing it needs root: run `apt-get install -y chromium` (or set CHROMIUM_PATH)' });
    if (!isExecutable(path)) throw new Error(`apt-get reported success but ${path} is still missing`);
  }
  const version = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (version.status !== 0) throw new Error(`${path} --version failed: ${(version.stderr || version.error?.message || '').trim()}`);
  return { path, version: version.stdout.trim() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { path, version } = ensureChromium();
    console.log(`[browser-tests] ${version} at ${path}`);
  } catch (err) {
    console.error(`[browser-tests] ${err.message}`);
    process.exit(1);
  }
}
