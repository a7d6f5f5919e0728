/**
 * What other packages' tests may use of the alerts service beyond its app factory: its jobs, run by hand, and
 * what a deletion upstream does in its transaction (to hold one open while a request races it).
 */
export { dailyResetJob, priceAlertsJob, priceChangeAlertsJob } from '../jobs/alerts-jobs.js';
export { markTargetDeleted } from '../membership/membership.repository.js';
