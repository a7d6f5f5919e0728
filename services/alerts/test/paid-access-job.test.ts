/**
 * notify:record-paid-access (jobs/paid-access.job.ts) on real Postgres: which users it asks billing about, that a
 * billing that does not answer leaves them to the next run (with a warning), and that a second instance does not
 * run it at the same time. Billing is a plain object answering `ask`; its wire is covered by the gateway e2e
 * alerts-paid-access.
 */
import { FREE_PLAN_LIMITS } from '@invest/contracts';
import type { Db } from '@invest/platform/db/database';
import { runJob } from '@invest/platform/jobs/job-runner';
import { createLogger } from '@invest/platform/logging/logger';
import { useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { paidAccessJob } from '../src/jobs/paid-access.job.js';
import { migrations } from '../src/migrations/index.js';
import type { EntitlementsAnswer } from '../src/plans/entitlements.client.js';

let db: Db;
useTestDatabase('alerts_paid_access_job', migrations, (d) => (db = d));

const silent = createLogger('test', 'silent');

function capturingLogger(): { logger: typeof silent; warnings: () => { msg: string; failed?: number; left?: number }[] } {
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger('test', 'info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, warnings: () => lines.filter((l) => l.level === 'warn') };
}

/** `n` active (or not) price-change notifications of `user` on `type`. */
async function notifications(user: string, n: number, type: 'asset' | 'portfolio' = 'asset', active = true): Promise<void> {
  await db.query(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, is_active)
     select $1, 8, $2, 1, case when $2 = 'asset' then 'share' end, '>=', 5, 5, $4 from generate_series(1, $3)`,
    [user, type, n, active],
  );
}

function answer(userId: string, paid: boolean, endsAt: string | null): EntitlementsAnswer {
  return {
    entitlements: { userId, plan: { id: paid ? 2 : 1, code: paid ? 'basic-m' : 'free' }, paid, endsAt, limits: FREE_PLAN_LIMITS },
    askedAt: new Date(),
  };
}

const rows = async () =>
  (await db.query<{ user_id: string; paid_until: string | Date | null }>('select user_id, paid_until from paid_access order by user_id')).map((r) => ({
    user_id: r.user_id,
    paid_until: r.paid_until === null ? null : new Date(r.paid_until),
  }));

describe('notify:record-paid-access', () => {
  it('asks about users beyond the free plan without a row, records paid and not-paid answers, and is retried when billing does not answer', async () => {
    const limit = FREE_PLAN_LIMITS.activeNotifications!;
    await notifications('a-over-count', limit + 1);
    await notifications('b-portfolio', 1, 'portfolio');
    await notifications('c-ended', limit + 1);
    await notifications('d-within', limit);
    await notifications('e-inactive-extra', limit);
    await notifications('e-inactive-extra', 2, 'portfolio', false);
    await notifications('f-has-row', limit + 1);
    await db.query("insert into paid_access (user_id, paid_until, asked_at) values ('f-has-row', null, now())");

    // Billing does not answer: nothing recorded, a warning, everyone left to the next run.
    const asked: string[] = [];
    const down = capturingLogger();
    const unavailable = paidAccessJob(db, { ask: async (u) => (asked.push(u), Promise.reject(new Error('billing.entitlements.get: no responders'))) }, down.logger);
    const first = await runJob(db, unavailable, [], silent);
    expect(first.status === 'done' && first.summary).toMatchObject({ fetched: 3, changed: 0, skipped: 3 });
    expect(asked.sort()).toEqual(['a-over-count', 'b-portfolio', 'c-ended']);
    expect(down.warnings()).toMatchObject([{ failed: 3, left: 3 }]);
    expect(await rows()).toEqual([{ user_id: 'f-has-row', paid_until: null }]);

    // Billing answers: paid until a time, and not paid (their paid access ended before alerts recorded it).
    const endsAt = '2027-01-01T00:00:00.000Z';
    const billing = {
      ask: async (u: string) => (u === 'c-ended' ? answer(u, false, null) : answer(u, true, endsAt)),
    };
    const before = new Date();
    const second = await runJob(db, paidAccessJob(db, billing, silent), [], silent);
    expect(second.status === 'done' && second.summary).toMatchObject({ fetched: 3, changed: 3, skipped: 0 });
    const recorded = await rows();
    expect(recorded.map((r) => r.user_id)).toEqual(['a-over-count', 'b-portfolio', 'c-ended', 'f-has-row']);
    expect(recorded[0]!.paid_until?.toISOString()).toBe(endsAt);
    expect(recorded[1]!.paid_until?.toISOString()).toBe(endsAt);
    // Ended by the time billing was asked.
    expect(recorded[2]!.paid_until!.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(recorded[2]!.paid_until!.getTime()).toBeLessThanOrEqual(Date.now());

    // Nobody left to ask.
    const third = await runJob(db, paidAccessJob(db, billing, silent), [], silent);
    expect(third.status === 'done' && third.summary).toMatchObject({ fetched: 0, changed: 0, skipped: 0 });
  });

  it('never replaces a later answer, and runs on one instance at a time', async () => {
    await notifications('g-raced', FREE_PLAN_LIMITS.activeNotifications! + 1);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let asking!: () => void;
    const asked = new Promise<void>((r) => (asking = r));
    const stale = answer('g-raced', true, '2027-01-01T00:00:00.000Z');
    const slowBilling = {
      ask: async () => {
        asking();
        await released;
        return stale;
      },
    };
    const running = runJob(db, paidAccessJob(db, slowBilling, silent), [], silent);
    await asked;
    // Another instance starting meanwhile does not run it.
    expect(await runJob(db, paidAccessJob(db, slowBilling, silent), [], silent)).toEqual({ status: 'locked' });
    // The billing events consumer records an answer asked later (not paid any more) while the job waits for its own.
    await db.query("insert into paid_access (user_id, paid_until, asked_at) values ('g-raced', now(), now())");
    const [later] = await rows().then((r) => r.filter((x) => x.user_id === 'g-raced'));
    release();
    expect((await running).status).toBe('done');
    expect((await rows()).filter((x) => x.user_id === 'g-raced')).toEqual([later]);
  });
});
