// Whether the compiled dist/ folders match the sources, cheaply: a fingerprint of every compiled source
// file's path, size and modification time (plus the SWC config and the build script), compared with the one
// the last successful build recorded. Plain JavaScript for any Node from 20 on: ensure-install.mjs runs it
// on whatever Node launched npm, before the project's own Node 24 may exist.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the last successful build's fingerprint is kept (ignored by git). */
export const stampFile = (root) => join(root, '.runtime', 'build.stamp');

/**
 * The workspace folders that have a src/ for SWC to compile (`dir/*` patterns expanded one level). The web
 * client (a Vite project) has its own build and stamp: scripts/build-web.mjs.
 */
export function buildDirs(root) {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dirs = workspaces.flatMap((w) => {
    if (!w.endsWith('/*')) return [w];
    const parent = w.slice(0, -2);
    if (!existsSync(join(root, parent))) return [];
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `${parent}/${d.name}`);
  });
  return dirs.filter((d) => existsSync(join(root, d, 'src')) && !existsSync(join(root, d, 'vite.config.ts'))).sort();
}

/** Test files are not compiled, so editing one does not make the build stale. */
const compiled = (file) => !file.endsWith('.test.ts');

export function buildFingerprint(root) {
  const hash = createHash('sha256');
  const add = (rel) => {
    const s = statSync(join(root, rel));
    hash.update(`${rel}\t${s.size}\t${s.mtimeMs}\n`);
  };
  for (const rel of ['.swcrc', 'scripts/build.mjs']) if (existsSync(join(root, rel))) add(rel);
  for (const dir of buildDirs(root)) {
    const files = readdirSync(join(root, dir, 'src'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && compiled(e.name))
      .map((e) => join(e.parentPath ?? e.path, e.name).slice(root.length).replace(/^\/+/, ''))
      .sort();
    hash.update(`#${dir}\n`);
    for (const f of files) add(f);
  }
  return hash.digest('hex');
}

/** True when every dist/ exists and the sources have not changed since the last successful build. */
export function isBuildFresh(root, fingerprint = buildFingerprint(root)) {
  const file = stampFile(root);
  if (!existsSync(file) || readFileSync(file, 'utf8').trim() !== fingerprint) return false;
  return buildDirs(root).every((d) => existsSync(join(root, d, 'dist')));
}

export function writeBuildStamp(root, fingerprint) {
  mkdirSync(dirname(stampFile(root)), { recursive: true });
  writeFileSync(stampFile(root), `${fingerprint}\n`);
}

/** A build that starts (or fails) must never leave an old stamp saying the half-written dist/ is fresh. */
export function clearBuildStamp(root) {
  rmSync(stampFile(root), { force: true });
}
