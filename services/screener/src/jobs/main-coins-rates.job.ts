import type { Job, JobSummary } from '@invest/platform';
import { COINGECKO_PAGE } from '../market-data/coingecko.client.js';
import { tokenBatch } from './asset-rates.job.js';
import type { ScreenerJobDeps } from './job-deps.js';
import { RunReport } from './run-report.js';

export const MAIN_COINS_JOB = 'command:GetMainCoinsRates';

/** `command:GetMainCoinsRates`: every minute, the main coins (`MAIN_COINS`) from CoinGecko; new coins are created. */
export function createMainCoinsRatesJob(deps: ScreenerJobDeps): Job {
  return {
    name: MAIN_COINS_JOB,
    async run(args: string[]): Promise<JobSummary> {
      if (args.length) throw new Error(`${MAIN_COINS_JOB}: takes no options (got ${args.join(' ')})`);
      const report = new RunReport();
      for (let i = 0; i < deps.mainCoins.length; i += COINGECKO_PAGE) {
        await tokenBatch(deps, report, deps.mainCoins.slice(i, i + COINGECKO_PAGE), { insertMissing: true, source: MAIN_COINS_JOB });
      }
      return report.finish(MAIN_COINS_JOB);
    },
  };
}
