#!/usr/bin/env node
// Makes sure the system Chromium that the browser tests drive (through playwright-core) is installed:
// Debian's `chromium` package, installed with apt-get when /usr/bin/chromium is missing. Playwright's own
// browser download is never used (no internet beyond the npm registry and Debian mirrors).
// Idempotent: when the binary is there it only checks that it starts. `CHROMIUM_PATH` points at another
// Chromium (macOS, another distribution) and skips the install.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** The Chromium executable the browser tests use, installing Debian's package first when it is missing. */
export function ensureChromium({ log = console.log } = {}) {
  const path = process.env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
  if (!isExecutable(path)) {
    if (process.env.CHROMIUM_PATH) throw new Error(`CHROMIUM_PATH=${path} is not an executable file`);
    install(log);
    if (!isExecutable(path)) throw new Error(`apt-get reported success but ${path} is still missing`);
  }
  const version = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (version.status !== 0) throw new Error(`${path} --version failed: ${(version.stderr || version.error?.message || '').trim()}`);
  return { path, version: version.stdout.trim() };
}

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function install(log) {
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  if (!asRoot && spawnSync('sudo', ['-n', 'true']).status !== 0) {
    throw new Error('Chromium is missing and installing it needs root: run `apt-get install -y chromium` (or set CHROMIUM_PATH)');
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Several test runs (or helpers) may install at once: wait for dpkg's lock instead of failing on it.
  const apt = (args) => {
    const [cmd, ...rest] = [...sudo, 'apt-get', '-o', 'DPkg::Lock::Timeout=600', ...args];
    return spawnSync(cmd, rest, { stdio: 'inherit', env });
  };
  log('[browser-tests] installing Debian chromium (apt-get install -y chromium); once per machine');
  let r = apt(['install', '-y', '--no-install-recommends', 'chromium']);
  if (r.status !== 0) {
    // A clean image (CI) has no package lists yet: fetch them, then try again.
    log('[browser-tests] apt-get install failed; running apt-get update and retrying');
    apt(['update']);
    r = apt(['install', '-y', '--no-install-recommends', 'chromium']);
  }
  if (r.status !== 0) throw new Error(`apt-get install chromium failed (exit ${r.status ?? r.signal})`);
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
