#!/usr/bin/env node
// Builds the web client (web/ → web/dist) after build.mjs compiled the gateway:
//   1. writes the gateway's OpenAPI document (web/openapi.json) from the compiled gateway, no NATS needed;
//   2. generates web/src/api/openapi.d.ts from it (openapi-typescript);
//   3. typechecks web/ against those types: a route or schema the client uses that changed fails here;
//   4. bundles with Vite and writes .br/.gz copies of the text files, which the gateway serves as they are.
// Stamp-based like build.mjs: nothing runs while web/ sources and the backend build are unchanged, and steps 2-4
// are skipped when the OpenAPI document came out the same. `--force` builds anyway.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const web = join(root, 'web');
const quiet = process.argv.includes('--quiet');
const force = process.argv.includes('--force');
const stamp = join(root, '.runtime', 'web-build.stamp');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const log = (m) => quiet || console.log(`[build] ${m}`);

if (!existsSync(join(web, 'package.json'))) process.exit(0);

/** path, size, mtime of the web sources (generated types excluded: they are an output). */
function webFingerprint(backendStamp) {
  const hash = createHash('sha256');
  hash.update(`backend\t${backendStamp}\n`);
  const add = (rel) => {
    const s = statSync(join(root, rel));
    hash.update(`${rel}\t${s.size}\t${s.mtimeMs}\n`);
  };
  for (const rel of ['scripts/build-web.mjs', 'web/index.html', 'web/vite.config.ts', 'web/package.json', 'web/tsconfig.json', 'package-lock.json']) if (existsSync(join(root, rel))) add(rel);
  for (const dir of ['web/src', 'web/public'].filter((d) => existsSync(join(root, d)))) {
    const files = readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.endsWith('.test.ts') && e.name !== 'openapi.d.ts')
      .map((e) => join(e.parentPath, e.name).slice(root.length).replace(/^\/+/, ''))
      .sort();
    for (const f of files) add(f);
  }
  return hash.digest('hex');
}

const backendStampFile = join(root, '.runtime', 'build.stamp');
const backendStamp = existsSync(backendStampFile) ? readFileSync(backendStampFile, 'utf8').trim() : 'none';
const fingerprint = webFingerprint(backendStamp);
if (!force && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === fingerprint && existsSync(join(web, 'dist', 'index.html'))) {
  log('web up to date');
  process.exit(0);
}
rmSync(stamp, { force: true });

function run(what, cmd, args) {
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (r.status !== 0) {
    console.error(`[build] web: ${what} failed`);
    process.exit(r.status ?? 1);
  }
  log(`web: ${what} (${Date.now() - started} ms)`);
}

const docFile = join(web, 'openapi.json');
const before = existsSync(docFile) ? readFileSync(docFile, 'utf8') : '';
run('OpenAPI document', process.execPath, [join(root, 'services/gateway/dist/docs/openapi.command.js'), docFile]);
const typesFile = join(web, 'src/api/openapi.d.ts');
if (readFileSync(docFile, 'utf8') !== before || !existsSync(typesFile) || force) {
  run('API types', bin('openapi-typescript'), [docFile, '-o', typesFile, '--silent']);
}
run('typecheck', bin('tsc'), ['-p', join(web, 'tsconfig.json'), '--noEmit']);
run('bundle', bin('vite'), ['build', '--config', join(web, 'vite.config.ts'), '--logLevel', quiet ? 'error' : 'warn']);

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.webmanifest']);
let gzipTotal = 0;
for (const e of readdirSync(join(web, 'dist'), { recursive: true, withFileTypes: true })) {
  if (!e.isFile() || !COMPRESSIBLE.has(extname(e.name))) continue;
  const file = join(e.parentPath, e.name);
  const body = readFileSync(file);
  if (body.length < 512) continue;
  const gz = gzipSync(body, { level: 9 });
  gzipTotal += gz.length;
  writeFileSync(`${file}.gz`, gz);
  writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } }));
}
log(`web: compressed (${(gzipTotal / 1024).toFixed(1)} KB gzip in all)`);
mkdirSync(join(root, '.runtime'), { recursive: true });
writeFileSync(stamp, `${fingerprint}\n`);
