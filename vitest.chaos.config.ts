import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// `npm run test:chaos`: the chaos test alone (minutes long, many processes), kept out of `npm test`'s files.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { conditions: ['development'] },
  ssr: { resolve: { conditions: ['development'], externalConditions: ['development'] } },
  test: {
    include: ['test/chaos/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 600_000,
    hookTimeout: 300_000,
    pool: 'forks',
    globalSetup: ['platform/src/testing/global-setup.ts'],
    reporters: ['default'],
  },
});
