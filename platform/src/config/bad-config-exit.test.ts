/**
 * "A bad value is named and the process exits with status 78" (README, Configuration), checked on the
 * real processes: each service's `main.ts` is spawned from source with one bad variable.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSourceMain } from '../testing/run-source-main.js';

const repo = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));

// Servers nobody listens on: should a main get past its configuration, it cannot touch the shared ones.
const nowhere = { NATS_URL: 'nats://127.0.0.1:9', DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none', LOG_LEVEL: 'info' };

describe('a bad configuration exits with status 78 and names the variable', () => {
  it.each([
    ['gateway', 'services/gateway/src/main.ts', { AUTH_MAX_TOKEN_TTL: 'forever' }, 'AUTH_MAX_TOKEN_TTL'],
    ['portfolios', 'services/portfolios/src/main.ts', { RPC_TIMEOUT_MS: 'soon' }, 'RPC_TIMEOUT_MS'],
    ['screener', 'services/screener/src/main.ts', { MOEX_ISS_MIN_INTERVAL_MS: '-5' }, 'MOEX_ISS_MIN_INTERVAL_MS'],
    ['chat', 'services/chat/src/main.ts', { OPENAI_IDLE_TIMEOUT_MS: 'soon' }, 'OPENAI_IDLE_TIMEOUT_MS'],
  ])('%s main, %o', async (service, entry, bad, variable) => {
    const out = await runSourceMain(repo(entry), { ...nowhere, ...bad }, 45_000);
    expect(out.timedOut, out.stderr).toBe(false);
    expect(out.code, out.stderr + out.stdout).toBe(78);
    const line = JSON.parse(out.stderr.trim().split('\n').at(-1)!) as { level: string; service: string; issues: string[] };
    expect(line).toMatchObject({ level: 'fatal', service });
    expect(line.issues.some((i) => i.startsWith(`${variable}: `)), line.issues.join('; ')).toBe(true);
  }, 60_000);
});
