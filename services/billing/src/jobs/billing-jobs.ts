import { type Db, type Job, type Logger, ServiceError } from '@invest/platform';
import type { BillingService } from '../billing.service.js';
import { runBillingCommand } from '../subscriptions/billing-commands.js';

export const CLEAR_OUTDATED_JOB = 'clear:outdated-subscriptions';
export const RECONCILE_JOB = 'billing:reconcile';
/** Subscriptions whose ends_at is more than this long ago are removed (spec: 2 days). */
export const OUTDATED_AFTER_MS = 2 * 24 * 3_600_000;

export interface BillingJobDeps {
  db: Db;
  billing: BillingService;
  logger: Logger;
  clock: () => Date;
  marketTz: string;
}

/**
 * `clear:outdated-subscriptions` (daily 03:30 MARKET_TZ; the spec leaves it unscheduled): a
 * SubscriptionRemoved event per subscription that ended more than two days ago, then the read model.
 */
export function clearOutdatedSubscriptionsJob(d: BillingJobDeps): Job {
  return {
    name: CLEAR_OUTDATED_JOB,
    schedule: { dailyAt: '03:30', timeZone: d.marketTz },
    async run() {
      const now = d.clock();
      const olderThan = new Date(now.getTime() - OUTDATED_AFTER_MS);
      const users = await d.db.query<{ user_id: string }>('select distinct user_id from subscriptions where ends_at < $1 order by user_id', [olderThan]);
      let changed = 0;
      for (const { user_id: userId } of users) {
        const result = await runBillingCommand(d.db, { type: 'RemoveOutdated', userId, olderThan, now }, undefined);
        changed += result.newEvents.length;
      }
      return { fetched: users.length, changed, skipped: 0 };
    },
  };
}

/**
 * `billing:reconcile` (daily 04:00 MARKET_TZ): syncs every user with a live provider subscription and logs
 * each drift it corrects. A provider failure for one user skips that user, never the rest.
 */
export function reconcileSubscriptionsJob(d: BillingJobDeps): Job {
  return {
    name: RECONCILE_JOB,
    schedule: { dailyAt: '04:00', timeZone: d.marketTz },
    async run() {
      const users = await d.db.query<{ user_id: string }>(
        `select distinct user_id from subscriptions where external_id is not null and (ends_at is null or ends_at > $1) order by user_id`,
        [d.clock()],
      );
      let changed = 0;
      const notes: string[] = [];
      for (const { user_id: userId } of users) {
        try {
          changed += (await d.billing.reconcileUser(userId, 'reconcile')).length;
        } catch (err) {
          notes.push(`${userId}: ${err instanceof ServiceError ? err.message : String(err)}`);
        }
      }
      return { fetched: users.length, changed, skipped: notes.length, notes };
    },
  };
}

