import type { Db } from '@invest/platform/db/database';
import { runJob } from '@invest/platform/jobs/job-runner';
import type { Logger } from '@invest/platform/logging/logger';
import { useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it, vi } from 'vitest';
import { deliveryConfigFrom, deliveryEnvSchema } from '../config/delivery.config.js';
import { migrations } from '../migrations/index.js';
import { retentionJob } from './retention.job.js';

let db: Db;
useTestDatabase('delivery_retention', migrations, (d) => (db = d));

const DAY = 24 * 60 * 60_000;
const now = new Date('2026-06-30T12:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY);
let nextFiring = 1;

/** A group of `user` sealed at `sealedAt` (null: open), with one firing and one delivery per status given. */
async function group(user: string, sealedAt: Date | null, statuses: string[]): Promise<string> {
  const opened = sealedAt ?? now;
  const [{ id }] = (await db.query<{ id: string }>('insert into message_groups (user_id, opened_at, due_at, sealed_at) values ($1, $2, $2, $3) returning id::text', [user, opened, sealedAt])) as [{ id: string }];
  await db.query('insert into received_firings (firing_id, user_id, notification_id, event, group_id, received_at) values ($1, $2, 1, $3, $4, $5)', [nextFiring++, user, '{}', id, opened]);
  for (const [i, status] of statuses.entries()) {
    await db.query("insert into deliveries (group_id, user_id, channel, address, status, next_attempt_at) values ($1, $2, 'push', $3, $4, $5)", [id, user, `device-${i}`, status, opened]);
  }
  return id;
}

const remaining = async (...users: string[]) => (await db.query<{ id: string }>('select id::text from message_groups where user_id = any($1) order by id', [users])).map((r) => r.id);
const counts = async () =>
  (await db.query<{ firings: number; deliveries: number }>('select (select count(*)::int from received_firings) as firings, (select count(*)::int from deliveries) as deliveries'))[0];

describe('the retention job', () => {
  it('deletes old finished groups with their firings and deliveries, never a pending, recent or open one, nor the failures', async () => {
    const finished = await group('u1', daysAgo(31), ['sent', 'failed', 'skipped']);
    const empty = await group('u1', daysAgo(40), []);
    const pending = await group('u1', daysAgo(60), ['sent', 'pending']);
    const recent = await group('u2', daysAgo(29), ['sent']);
    const open = await group('u2', null, []);
    await db.query("insert into delivery_failures (user_id, channel, at, reason) values ('u1', 'push', $1, 'gone')", [daysAgo(45)]);

    const summary = await retentionJob({ db, clock: () => now, retentionDays: 30 }).run([]);

    expect(summary).toMatchObject({ changed: 2, deletedFirings: 2, deletedDeliveries: 3 });
    expect(await remaining('u1', 'u2')).toEqual([pending, recent, open]);
    expect(await remaining('u1')).not.toContain(finished);
    expect(await remaining('u1')).not.toContain(empty);
    expect(await counts()).toEqual({ firings: 3, deliveries: 3 });
    expect(await db.query('select reason from delivery_failures')).toEqual([{ reason: 'gone' }]);

    // Its last delivery sent, the old group goes on the next run; the clock moved on, so does the recent one.
    await db.query("update deliveries set status = 'sent' where group_id = $1", [pending]);
    const later = retentionJob({ db, clock: () => new Date(now.getTime() + 2 * DAY), retentionDays: 30 });
    expect(await later.run([])).toMatchObject({ changed: 2 });
    expect(await remaining('u1', 'u2')).toEqual([open]);
  });

  it('deletes in batches until none is left', async () => {
    for (let i = 0; i < 7; i++) await group('u3', daysAgo(100 + i), ['sent']);
    const summary = await retentionJob({ db, clock: () => now, retentionDays: 30, batchSize: 3 }).run([]);
    expect(summary).toMatchObject({ changed: 7, deletedFirings: 7, deletedDeliveries: 7 });
    expect(await remaining('u3')).toEqual([]);
  });

  it('logs its summary at info only when it deleted something', async () => {
    const logger = { info: vi.fn(), debug: vi.fn(), error: vi.fn(), warn: vi.fn() } as unknown as Logger;
    const job = retentionJob({ db, clock: () => now, retentionDays: 30 });
    await runJob(db, job, [], logger);
    expect(logger.info).not.toHaveBeenCalled();
    await group('u4', daysAgo(31), ['sent']);
    await runJob(db, job, [], logger);
    expect(logger.info).toHaveBeenCalledTimes(1);
    expect(vi.mocked(logger.info).mock.calls[0]![0]).toMatchObject({ job: 'delivery:retention', changed: 1, deletedFirings: 1, deletedDeliveries: 1 });
  });

  it('keeps 30 days unless DELIVERY_RETENTION_DAYS says otherwise, and names the variable when it is bad', () => {
    expect(deliveryConfigFrom(deliveryEnvSchema.parse({})).retentionDays).toBe(30);
    expect(deliveryConfigFrom(deliveryEnvSchema.parse({ DELIVERY_RETENTION_DAYS: '7' })).retentionDays).toBe(7);
    for (const bad of ['0', 'soon', '1.5']) {
      const parsed = deliveryEnvSchema.safeParse({ DELIVERY_RETENTION_DAYS: bad });
      expect(parsed.error?.issues.map((i) => i.message).join()).toMatch(/^DELIVERY_RETENTION_DAYS must/);
    }
  });
});
