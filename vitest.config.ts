import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// SWC instead of esbuild: NestJS dependency injection needs emitted decorator metadata.
export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  resolve: { conditions: ['development'] },
  ssr: { resolve: { conditions: ['development'], externalConditions: ['development'] } },
  test: {
    include: ['eslint/**/*.test.ts', 'contracts/src/**/*.test.ts', 'platform/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/e2e/**/*.test.ts', 'scripts/test/**/*.test.ts', 'web/src/**/*.test.ts', 'bench/src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 30_000,
    // `expect.poll` waits for a condition; vitest's default of 1 s is a timing assumption a busy machine breaks
    // (a browser import confirmed under load took longer). A condition that never comes still fails, later.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at once, whatever the core count (vitest's default is one less than the cores: one on CI's two).
    // Most files wait on Postgres, NATS and timers rather than compute, and each has its own database and bus
    // prefix: on two cores the suite took 525 s one at a time and 354 s two at a time, all passing.
    maxWorkers: 2,
    globalSetup: ['platform/src/testing/global-setup.ts'],
    reporters: ['default'],
  },
});
