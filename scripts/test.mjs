#!/usr/bin/env node
// `npm test`: typecheck, lint, then every vitest test against the real Postgres and NATS.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules', '.bin', name);
const steps = [
  ['typecheck', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['lint', bin('eslint'), ['.']],
  ['build', process.execPath, [join(root, 'scripts', 'build.mjs')]],
  ['tests', bin('vitest'), ['run', ...process.argv.slice(2)]],
];
console.log(`[test] node ${process.version}`);
for (const [name, cmd, args] of steps) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    console.error(`[test] ${name} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
  console.log(`[test] ${name} ok in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}
