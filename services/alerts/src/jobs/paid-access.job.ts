import type { Db, Job, Logger } from '@invest/platform';
import type { EntitlementsClient } from '../plans/entitlements.client.js';
import { recordPaidAccess, usersBeyondFreePlanWithoutRow } from '../plans/paid-access.repository.js';

export const PAID_ACCESS_JOB = 'notify:record-paid-access';

/** Billing calls in flight at once: the job must not crowd out the creates and switch-ons that ask billing too. */
export const PAID_ACCESS_CONCURRENCY = 4;

/**
 * Finds the users holding active notifications the free plan would not keep but no paid_access row (their paid
 * access began before alerts recorded it, and BILLING_EVENTS keeps only 7 days), asks billing about each, a few
 * at a time, and records the answers as the billing events consumer does (an answer asked earlier never replaces
 * a later one). Evaluation then pauses them when that access ends (README, "When paid access ends"). A recorded
 * user is not found again, so runs after the first have nothing to do; a user billing did not answer about keeps
 * no row and is asked on the next run. Run at start and hourly under the scheduler's advisory lock.
 */
export function paidAccessJob(db: Db, entitlements: Pick<EntitlementsClient, 'ask'>, logger: Logger): Job {
  return {
    name: PAID_ACCESS_JOB,
    schedule: { everyMinutes: 60 },
    async run() {
      const users = await usersBeyondFreePlanWithoutRow(db);
      let recorded = 0;
      const failed: { userId: string; error: unknown }[] = [];
      for (let i = 0; i < users.length; i += PAID_ACCESS_CONCURRENCY) {
        const batch = users.slice(i, i + PAID_ACCESS_CONCURRENCY);
        const outcomes = await Promise.allSettled(batch.map(async (userId) => recordPaidAccess(db, await entitlements.ask(userId), { beyondFreePlan: true })));
        outcomes.forEach((o, k) => (o.status === 'fulfilled' ? recorded++ : failed.push({ userId: batch[k]!, error: o.reason })));
        // A whole batch failing is billing being unavailable: asking the rest would only wait out their timeouts.
        if (outcomes.every((o) => o.status === 'rejected')) break;
      }
      const left = users.length - recorded;
      if (left > 0) {
        const first = failed[0]?.error;
        logger.warn(
          { job: PAID_ACCESS_JOB, failed: failed.length, left, err: first },
          `${PAID_ACCESS_JOB}: billing did not answer about ${failed.length} users; ${left} without a recorded paid access are asked again on the next run`,
        );
      }
      return { fetched: users.length, changed: recorded, skipped: left };
    },
  };
}
