#!/usr/bin/env node
// Compiles every workspace package with SWC (fast, emits decorator metadata for NestJS DI) into its dist/.
// Nothing is compiled when no source changed since the last successful build (see build-stamp.mjs);
// `--force` compiles anyway. Then the web client (scripts/build-web.mjs, its own stamp), unless `--backend-only`.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildDirs, buildFingerprint, clearBuildStamp, isBuildFresh, writeBuildStamp } from './build-stamp.mjs';

const root = new URL('..', import.meta.url).pathname;
const quiet = process.argv.includes('--quiet');
const force = process.argv.includes('--force');
const dirs = buildDirs(root);
const swc = join(root, 'node_modules', '.bin', 'swc');

// Taken before compiling: a source saved during the build leaves the stamp stale, so the next run compiles it.
const fingerprint = buildFingerprint(root);
if (!force && isBuildFresh(root, fingerprint)) {
  if (!quiet) console.log('[build] up to date');
  buildWeb();
  process.exit(0);
}
clearBuildStamp(root);

const results = await Promise.all(
  dirs.map(
    (dir) =>
      new Promise((resolve) => {
        rmSync(join(root, dir, 'dist'), { recursive: true, force: true });
        const child = spawn(
          swc,
          ['src', '-d', 'dist', '--strip-leading-paths', '--config-file', join(root, '.swcrc'), '-q', '--ignore', '**/*.test.ts'],
          { cwd: join(root, dir), stdio: 'inherit' },
        );
        child.on('exit', (code) => resolve({ dir, code }));
      }),
  ),
);
const failed = results.filter((r) => r.code !== 0);
if (failed.length) {
  console.error(`[build] failed: ${failed.map((f) => f.dir).join(', ')}`);
  process.exit(1);
}
writeBuildStamp(root, fingerprint);
if (!quiet) console.log(`[build] compiled ${dirs.length} packages`);
buildWeb();

/** The web client needs the compiled gateway (its OpenAPI document); it has its own up-to-date check. */
function buildWeb() {
  if (process.argv.includes('--backend-only')) return;
  const args = [join(root, 'scripts', 'build-web.mjs'), ...(quiet ? ['--quiet'] : []), ...(force ? ['--force'] : [])];
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
