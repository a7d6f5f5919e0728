import { describe, expect, it } from 'vitest';
import type { Db } from '../db/database.js';
import { createLogger } from '../logging/logger.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { type Job, runJob } from './job-runner.js';

describe('runJob', () => {
  let db!: Db;
  const logger = createLogger('test', 'silent');
  useTestDatabase('jobs', [], (d) => (db = d));

  it('never runs the same job twice at once', async () => {
    let concurrent = 0;
    let maxConcurrent = 0;
    const job: Job = {
      name: 'test:slow',
      async run() {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        await new Promise((r) => setTimeout(r, 200));
        concurrent--;
        return { fetched: 1, changed: 1, skipped: 0 };
      },
    };
    const outcomes = await Promise.all([runJob(db, job, [], logger), runJob(db, job, [], logger)]);
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
});
