// Node module hooks that run this repository's TypeScript sources directly (SWC with the project's
// .swcrc, and `./x.js` specifiers resolved to `./x.ts`), so a test can spawn a real `main.ts` without
// a build: `node --conditions=development --import <this file> services/x/src/main.ts`.
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath, URL } from 'node:url';
import { transformSync } from '@swc/core';

const swcrc = JSON.parse(readFileSync(new URL('../../../.swcrc', import.meta.url), 'utf8'));

registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (err) {
      const relative = specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:');
      if (err?.code === 'ERR_MODULE_NOT_FOUND' && relative && specifier.endsWith('.js')) {
        return next(`${specifier.slice(0, -3)}.ts`, context);
      }
      throw err;
    }
  },
  load(url, context, next) {
    if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) return next(url, context);
    const filename = fileURLToPath(url);
    const { code } = transformSync(readFileSync(filename, 'utf8'), { ...swcrc, filename, sourceMaps: 'inline', swcrc: false, configFile: false });
    return { format: 'module', source: code, shortCircuit: true };
  },
});
