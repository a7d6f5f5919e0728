#!/usr/bin/env node
// Compiles every workspace package with SWC (fast, emits decorator metadata for NestJS DI) into its dist/.
import { spawn } from 'node:child_process';
import { readFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const quiet = process.argv.includes('--quiet');
const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { globSync } = await import('node:fs');
const dirs = workspaces.flatMap((w) => globSync(w, { cwd: root })).filter((d) => existsSync(join(root, d, 'src')));
const swc = join(root, 'node_modules', '.bin', 'swc');

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
if (!quiet) console.log(`[build] compiled ${dirs.length} packages`);
