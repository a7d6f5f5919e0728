import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = '@invest/screener';
let cached: string | undefined;

/**
 * The screener package directory (the one holding its package.json and `data/`), found by walking up from
 * this module. Works the same from `src/` (vitest, tsc) and from `dist/` (SWC build).
 */
export function screenerPackageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return (cached = dir);
      } catch {
        // not a readable package.json; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package directory above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** A file in the package's `data/` directory. */
export function screenerDataFile(name: string): string {
  return join(screenerPackageRoot(), 'data', name);
}
