/**
 * "ISS requests are at least MOEX_ISS_MIN_INTERVAL_MS apart" (README, Configuration): the clients built
 * from the configuration, called concurrently, against a local ISS that records when each request came,
 * retries included.
 */
import { createLogger } from '@invest/platform/logging/logger';
import type { Db } from '@invest/platform/db/database';
import { loadConfig } from '@invest/platform/config/load-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenerConfigSchema } from '../config.js';
import { createJobDeps } from '../jobs/job-deps.js';
import { FakeProviders } from '../testing/fake-providers.js';
import { MOEX_MARKETS } from './iss-market.parser.js';

// Longer than the default (200), so a client that ignored the setting would be caught too.
const INTERVAL_MS = 300;
// Timers may fire a millisecond early against Date.now(); the spacing itself is the rule.
const TIMER_SLACK_MS = 2;

let fake: FakeProviders;
beforeAll(async () => {
  fake = await FakeProviders.start();
});
afterAll(() => fake?.close());

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('ISS request spacing', () => {
  it('keeps concurrent requests and retries at least MOEX_ISS_MIN_INTERVAL_MS apart', async () => {
    const config = loadConfig(screenerConfigSchema, {
      MOEX_ISS_URL: fake.moexUrl,
      MOEX_ISS_MIN_INTERVAL_MS: String(INTERVAL_MS),
      // A first backoff far shorter than the interval: a retry must still wait the interval.
      PROVIDER_BACKOFF_MS: '5',
      PROVIDER_RETRIES: '2',
    });
    // The clients never touch the database.
    const { moex } = createJobDeps({ db: {} as Db, logger: createLogger('iss-interval-test', 'silent'), marketTz: config.MARKET_TZ, providers: config });
    fake.reset();
    fake.fail('/dividends.json', { status: 503 });

    await Promise.all([
      moex.dividends('SBER'),
      moex.market(MOEX_MARKETS.shares, 'TQBR'),
      moex.dividends('GAZP'),
      moex.dividends('LKOH'),
    ]);
    const iss = fake.requests.filter((r) => r.path.startsWith('/iss/'));
    // Four calls, one of them answered 503 once and retried.
    expect(iss).toHaveLength(5);
    for (const gap of gaps(iss.map((r) => r.at))) expect(gap).toBeGreaterThanOrEqual(INTERVAL_MS - TIMER_SLACK_MS);
  });
});
