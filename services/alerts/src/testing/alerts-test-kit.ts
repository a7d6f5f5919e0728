/** What other packages' tests may use of the alerts service beyond its app factory: its jobs, run by hand. */
export { dailyResetJob, priceAlertsJob, priceChangeAlertsJob } from '../jobs/alerts-jobs.js';
