import type { Db } from '@invest/platform/db/database';
import type { Job } from '@invest/platform/jobs/job-runner';
import { startOfDayInZone } from '@invest/platform/time/zoned-time';
import type { CommittedFirings, FiringPublisher, PriceFiringRecord } from '../delivery/firing-publisher.js';
import type { AlertsEvaluator, EvaluationResult } from '../evaluation/alerts-evaluator.js';
import { recordInChunks } from '../evaluation/chunked-recording.js';

export const PRICE_ALERTS_JOB = 'notify:price-alerts';
export const PRICE_CHANGE_ALERTS_JOB = 'notify:price-change-alerts';
export const DAILY_RESET_JOB = 'notify:reset-price-change-thresholds';

/**
 * The spec's schedules, kept as backstops: the RatesUpdated consumer fires within a second; a sweep over
 * the latest rates catches what it missed (the consumer was down, a rate aged into range). A sweep racing
 * the consumer fires nothing twice (the firing key is unique; the state change is conditional).
 */
/**
 * One sweep: every fresh rate's candidates read in one transaction, the firings recorded in chunks of their
 * own (as an event's are: a sweep firing for thousands of users holds each feed lock only for its chunk), each
 * chunk's NotificationFired published once it committed. Without a publisher (the command line) a running
 * alerts instance's publication backstop publishes them.
 */
export async function sweep(db: Db, evaluator: AlertsEvaluator, publisher: FiringPublisher | undefined, kind: 'price-target' | 'price-change', source: string): Promise<EvaluationResult> {
  const committed: CommittedFirings<PriceFiringRecord>[] = [];
  const publishing: Promise<void>[] = [];
  const plan = await evaluator.exclusive(async () => {
    const plan = await db.transaction((tx) => evaluator.plan(tx, { all: true }, [kind], source));
    try {
      await recordInChunks(db, evaluator, plan, {
        writers: 1,
        onCommitted: (c) => {
          committed.push(c);
          if (publisher) publishing.push(publisher.publish(c));
        },
      });
    } finally {
      await Promise.all(publishing);
    }
    return plan;
  });
  const firingIds = committed.flatMap((c) => c.firings.map((f) => f.id));
  return { candidates: plan.candidates, fired: firingIds.length, firingIds, committed };
}

export function priceAlertsJob(db: Db, evaluator: AlertsEvaluator, publisher?: FiringPublisher): Job {
  return {
    name: PRICE_ALERTS_JOB,
    schedule: { everyMinutes: 3 },
    async run() {
      const r = await sweep(db, evaluator, publisher, 'price-target', PRICE_ALERTS_JOB);
      // The candidate indexes read the last minute of index_changes; older rows are done with.
      await db.query("delete from index_changes where at < now() - interval '1 hour'");
      return { fetched: r.candidates, changed: r.fired, skipped: r.candidates - r.fired };
    },
  };
}

export function priceChangeAlertsJob(db: Db, evaluator: AlertsEvaluator, publisher?: FiringPublisher): Job {
  return {
    name: PRICE_CHANGE_ALERTS_JOB,
    schedule: { everyMinutes: 15 },
    async run() {
      const r = await sweep(db, evaluator, publisher, 'price-change', PRICE_CHANGE_ALERTS_JOB);
      return { fetched: r.candidates, changed: r.fired, skipped: r.candidates - r.fired };
    },
  };
}

/**
 * The spec's daily reset, written down at 00:00 MARKET_TZ: every price-change whose threshold grew and that
 * last fired before today returns to its step in a new cycle. Evaluation and the list already apply the
 * reset when they read a row (the same cycle and threshold), so this only keeps the stored thresholds
 * (and the candidate index) tight; a firing racing it finds its row changed and fires at the next rate instead.
 */
export function dailyResetJob(db: Db, clock: () => Date, marketTz: string): Job {
  return {
    name: DAILY_RESET_JOB,
    schedule: { dailyAt: '00:00', timeZone: marketTz },
    async run() {
      const today = startOfDayInZone(clock(), marketTz);
      const rows = await db.query<{ id: string }>(
        `update notifications set initial_value = value, cycle = cycle + 1, updated_at = $2
         where notification_type_id = 8 and initial_value > value and last_triggered_at < $1 returning id::text`,
        [today, clock()],
      );
      return { fetched: rows.length, changed: rows.length, skipped: 0 };
    },
  };
}
