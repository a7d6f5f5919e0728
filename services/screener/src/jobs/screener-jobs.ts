import { type Job, JobScheduler, type Schedule } from '@invest/platform';
import type { CustomAssetsService } from '../custom-assets/custom-assets.service.js';
import { createFinishDeletionsJob, FINISH_DELETIONS_JOB } from '../custom-assets/finish-deletions.job.js';
import { ASSET_RATES_JOB, ONLY_USED_ASSETS, createAssetRatesJob } from './asset-rates.job.js';
import type { ScreenerJobDeps } from './job-deps.js';
import { MAIN_COINS_JOB, createMainCoinsRatesJob } from './main-coins-rates.job.js';
import { SHARES_DIVIDENDS_JOB, createSharesDividendsJob } from './shares-dividends.job.js';
import { SHARES_MARKET_STATS_JOB, createSharesMarketStatsJob } from './shares-market-stats.job.js';

export interface ScheduledRun {
  job: Job;
  args: string[];
  schedule: Schedule;
  /** Also run once when the service starts (the rates: fresh at once, not minutes later). */
  atStart?: boolean;
}

export interface ScreenerJobs {
  /** Every job by its command name (`npm run cmd -- <name>`). */
  byName: Record<string, Job>;
  /** What the running service schedules. */
  scheduled: ScheduledRun[];
}

/**
 * The screener's jobs, named as in the spec, and their schedules (MARKET_TZ for the daily ones); with
 * `customAssets` (the running service: it asks portfolios over NATS), also the completion of deletions left
 * half way.
 */
export function createScreenerJobs(deps: ScreenerJobDeps, extra: { customAssets?: CustomAssetsService } = {}): ScreenerJobs {
  const rates = createAssetRatesJob(deps);
  const coins = createMainCoinsRatesJob(deps);
  const stats = createSharesMarketStatsJob(deps);
  const dividends = createSharesDividendsJob(deps);
  const deletions = extra.customAssets ? createFinishDeletionsJob(extra.customAssets) : undefined;
  return {
    byName: { [ASSET_RATES_JOB]: rates, [MAIN_COINS_JOB]: coins, [SHARES_MARKET_STATS_JOB]: stats, [SHARES_DIVIDENDS_JOB]: dividends, ...(deletions ? { [FINISH_DELETIONS_JOB]: deletions } : {}) },
    scheduled: [
      { job: stats, args: [], schedule: { dailyAt: '01:45', timeZone: deps.marketTz } },
      { job: dividends, args: [], schedule: { dailyAt: '02:15', timeZone: deps.marketTz } },
      { job: rates, args: [ONLY_USED_ASSETS], schedule: { everyMinutes: 1 }, atStart: true },
      // Also at start: a fresh start (the demo's 2024 capture, or data from a long stop) shows today's prices and
      // their 7-day change at once rather than up to 15 minutes later.
      { job: rates, args: [], schedule: { everyMinutes: 15 }, atStart: true },
      { job: coins, args: [], schedule: { everyMinutes: 1 }, atStart: true },
      ...(deletions ? [{ job: deletions, args: [], schedule: { everyMinutes: 1 }, atStart: true }] : []),
    ],
  };
}

/** Starts a scheduler with every scheduled run; `stop()` waits for runs in progress. */
export function scheduleScreenerJobs(deps: ScreenerJobDeps, jobs: ScreenerJobs): JobScheduler {
  const scheduler = new JobScheduler(deps.db, deps.logger);
  for (const run of jobs.scheduled) scheduler.schedule(run.job, run.args, run.schedule, { atStart: run.atStart });
  return scheduler;
}
