import { describe, expect, it } from 'vitest';
import type { Db } from '../db/database.js';
import { createLogger } from '../logging/logger.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { type Job, JobScheduler, runJob } from './job-runner.js';

describe('runJob', () => {
  let db!: Db;
  const logger = createLogger('test', 'silent');
  useTestDatabase('jobs', [], (d) => (db = d));

  it('never runs the same job twice at once', async () => {
    let concurrent = 0;
    let maxConcurrent = 0;
    // A run holds the lock until the other run has answered (or has started too: then the lock let both in), not
    // for a while: on a loaded machine the other run may only come to the lock after any fixed time.
    let finish!: () => void;
    const other = new Promise<void>((r) => (finish = r));
    const job: Job = {
      name: 'test:slow',
      async run() {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        if (concurrent > 1) finish();
        await other;
        concurrent--;
        return { fetched: 1, changed: 1, skipped: 0 };
      },
    };
    const runs = [runJob(db, job, [], logger), runJob(db, job, [], logger)];
    void Promise.race(runs).then(finish);
    const outcomes = await Promise.all(runs);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['done', 'locked']);
    expect(maxConcurrent).toBe(1);
    // The lock is released afterwards.
    expect((await runJob(db, job, [], logger)).status).toBe('done');
  });

  it('reports a failing job without throwing and releases the lock', async () => {
    const job: Job = { name: 'test:fails', run: () => Promise.reject(new Error('provider down')) };
    const first = await runJob(db, job, [], logger);
    expect(first.status).toBe('failed');
    expect((await runJob(db, job, [], logger)).status).toBe('failed');
  });

  it('runs a scheduled job once at start only when asked, then on its schedule', async () => {
    // A clock just past a minute: the next scheduled run is a minute away, far beyond this test.
    const now = () => new Date('2026-11-22T10:00:00.001Z');
    const runs: string[] = [];
    const job = (name: string): Job => ({
      name,
      async run() {
        runs.push(name);
        return { fetched: 0, changed: 0, skipped: 0 };
      },
    });
    const scheduler = new JobScheduler(db, logger, now);
    scheduler.schedule(job('test:at-start'), [], { everyMinutes: 1 }, { atStart: true });
    scheduler.schedule(job('test:on-schedule'), [], { everyMinutes: 1 });
    await scheduler.stop();
    expect(runs).toEqual(['test:at-start']);
  });
});
