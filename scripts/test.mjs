#!/usr/bin/env node
// `npm test`: typecheck, lint, then every vitest test against the real Postgres and NATS.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules', '.bin', name);
const steps = [
  ['typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['typecheck web', bin('tsc'), ['-p', join('web', 'tsconfig.json'), '--noEmit']],
  ['lint', bin('eslint'), ['.']],
  ['build', process.execPath, [join(root, 'scripts', 'build.mjs')]],
  ['tests', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${join(root, '.runtime', 'vitest.json')}`, ...process.argv.slice(2)]],
];
console.log(`[test] node ${process.version}`);
// A report left by an earlier run must never be read as this run's.
rmSync(join(root, '.runtime', 'vitest.json'), { force: true });
for (const [name, cmd, args] of steps) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    if (name === 'tests') summary();
    console.error(`[test] ${name} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
  console.log(`[test] ${name} ok in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}
summary();

/** The plain closing line CI reads: `tests: N passed, N failed` (and skipped). */
function summary() {
  try {
    const r = JSON.parse(readFileSync(join(root, '.runtime', 'vitest.json'), 'utf8'));
    const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
  } catch {
    /* no report: vitest's own output stands */
  }
}
