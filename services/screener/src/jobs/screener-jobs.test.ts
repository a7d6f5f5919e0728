import { type Db, createLogger, nextRun } from '@invest/platform';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROVIDERS } from '../screener.app.js';
import { JOB_COMMANDS } from './cli.js';
import { createJobDeps } from './job-deps.js';
import type { CustomAssetsService } from '../custom-assets/custom-assets.service.js';
import { FINISH_DELETIONS_JOB } from '../custom-assets/finish-deletions.job.js';
import { createScreenerJobs } from './screener-jobs.js';

describe('screener jobs', () => {
  const jobs = createScreenerJobs(
    createJobDeps({ db: {} as Db, logger: createLogger('test', 'silent'), marketTz: 'Europe/Moscow', providers: DEFAULT_PROVIDERS }),
  );

  it('are named as in the spec and scheduled as it says', () => {
    expect(jobs.scheduled.map((s) => [s.job.name, ...s.args].join(' ') + ' @ ' + JSON.stringify(s.schedule))).toEqual([
      'update:shares-market-stats @ {"dailyAt":"01:45","timeZone":"Europe/Moscow"}',
      'update:shares-dividends @ {"dailyAt":"02:15","timeZone":"Europe/Moscow"}',
      'get:assetRates --only_used_assets @ {"everyMinutes":1}',
      'get:assetRates @ {"everyMinutes":15}',
      'command:GetMainCoinsRates @ {"everyMinutes":1}',
    ]);
    // The rates also run when the service starts: fresh prices (and their 7-day change) at once, not minutes later.
    expect(jobs.scheduled.filter((s) => s.atStart).map((s) => [s.job.name, ...s.args].join(' '))).toEqual([
      'get:assetRates --only_used_assets',
      'get:assetRates',
      'command:GetMainCoinsRates',
    ]);
    // Every job is also a command of `npm run cmd`.
    expect(Object.keys(jobs.byName).sort()).toEqual([...JOB_COMMANDS].sort());
  });

  it('in the running service, also completes custom asset deletions left half way: every minute and at start, not a command', async () => {
    const grace: Date[] = [];
    const customAssets = {
      finishPendingDeletions: (olderThan: Date) => {
        grace.push(olderThan);
        return Promise.resolve({ pending: 2, deleted: 1, restored: 0, unanswered: 1 });
      },
    } as unknown as CustomAssetsService;
    const service = createScreenerJobs(createJobDeps({ db: {} as Db, logger: createLogger('test', 'silent'), marketTz: 'Europe/Moscow', providers: DEFAULT_PROVIDERS }), { customAssets });
    const run = service.scheduled.find((s) => s.job.name === FINISH_DELETIONS_JOB)!;
    expect({ schedule: run.schedule, atStart: run.atStart }).toEqual({ schedule: { everyMinutes: 1 }, atStart: true });
    expect(JOB_COMMANDS).not.toContain(FINISH_DELETIONS_JOB);
    const before = Date.now();
    expect(await service.byName[FINISH_DELETIONS_JOB]!.run([])).toMatchObject({ fetched: 2, changed: 1, skipped: 1 });
    const after = Date.now();
    // Only deletions hidden for over a minute: a younger one may still be waiting for portfolios' answer. The
    // cut-off is a minute before the job's own reading of the clock, which lies between `before` and `after`
    // (measured from `before` alone, a job that read the clock 1 ms later looked a millisecond short).
    expect(grace[0]!.getTime()).toBeGreaterThanOrEqual(before - 60_000);
    expect(grace[0]!.getTime()).toBeLessThanOrEqual(after - 60_000);
  });

  it('runs the stats job at 01:45 Moscow time', () => {
    const stats = jobs.scheduled.find((s) => s.job.name === 'update:shares-market-stats')!;
    // 2026-11-21 20:00 UTC is 23:00 in Moscow: next is 01:45 MSK on the 22nd = 22:45 UTC on the 21st.
    expect(nextRun(stats.schedule, new Date('2026-11-21T20:00:00Z')).toISOString()).toBe('2026-11-21T22:45:00.000Z');
  });

  it('refuses unknown options', async () => {
    await expect(jobs.byName['get:assetRates']!.run(['--only-used-assets'])).rejects.toThrow(/unknown option/);
    await expect(jobs.byName['update:shares-market-stats']!.run(['x'])).rejects.toThrow(/takes no options/);
    await expect(jobs.byName['update:shares-dividends']!.run(['--only'])).rejects.toThrow(/unknown option/);
  });
});
