import type { Db, Job } from '@invest/platform';
import type { AlertsEvaluator } from '../evaluation/alerts-evaluator.js';

export const PRICE_ALERTS_JOB = 'notify:price-alerts';
export const PRICE_CHANGE_ALERTS_JOB = 'notify:price-change-alerts';

/**
 * The spec's schedules, kept as backstops: the RatesUpdated consumer fires within a second; a sweep over
 * the latest rates catches what it missed (the consumer was down, a rate aged into range). A sweep racing
 * the consumer fires nothing twice (the firing key is unique; the state change is conditional).
 */
export function priceAlertsJob(db: Db, evaluator: AlertsEvaluator): Job {
  return {
    name: PRICE_ALERTS_JOB,
    schedule: { everyMinutes: 3 },
    async run() {
      const r = await db.transaction((tx) => evaluator.evaluate(tx, { all: true }, ['price-target'], PRICE_ALERTS_JOB));
      return { fetched: r.candidates, changed: r.fired, skipped: r.candidates - r.fired };
    },
  };
}

export function priceChangeAlertsJob(db: Db, evaluator: AlertsEvaluator): Job {
  return {
    name: PRICE_CHANGE_ALERTS_JOB,
    schedule: { everyMinutes: 15 },
    async run() {
      const r = await db.transaction((tx) => evaluator.evaluate(tx, { all: true }, ['price-change'], PRICE_CHANGE_ALERTS_JOB));
      return { fetched: r.candidates, changed: r.fired, skipped: r.candidates - r.fired };
    },
  };
}
