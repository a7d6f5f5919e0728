/**
 * A screener for the job tests: a database of its own, its jobs run by hand against the fake providers (or a
 * proxy in front of them), no relay and no used-assets consumer, nothing on a schedule.
 */
import { type Logger } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import type { ProviderSettings } from '../../src/jobs/job-deps.js';
import { type ScreenerApp, createScreenerApp } from '../../src/screener.app.js';
import type { FakeProviders } from '../../src/testing/fake-providers.js';

export interface JobScreener {
  screener: ScreenerApp;
  busPrefix: string;
  close(): Promise<void>;
}

/**
 * Starts the screener on a new database named after `name`, its providers at `fake` unless `providers` says
 * otherwise (no pause between ISS calls; `bitcoin` the only main coin).
 */
export async function startJobScreener(name: string, opts: { fake: FakeProviders; logger: Logger; providers?: Partial<ProviderSettings> }): Promise<JobScreener> {
  const busPrefix = `${uniqueName(name)}.`;
  const db = await createTestDatabase(`scr_${name}`);
  let screener: ScreenerApp;
  try {
    screener = await createScreenerApp({
      databaseUrl: db.url,
      natsUrl: testNatsUrl(),
      busPrefix,
      logger: opts.logger,
      relay: false,
      usedAssetsConsumer: false,
      providers: { MOEX_ISS_URL: opts.fake.moexUrl, COINGECKO_URL: opts.fake.coingeckoUrl, MOEX_ISS_MIN_INTERVAL_MS: 0, MAIN_COINS: ['bitcoin'], ...opts.providers },
    });
  } catch (err) {
    await db.drop();
    throw err;
  }
  return {
    screener,
    busPrefix,
    async close() {
      await screener.close();
      await db.drop();
    },
  };
}
