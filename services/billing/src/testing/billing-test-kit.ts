/** What other packages' tests may use of billing beyond its app factory (the boundary rule allows `testing/*`). */
export { clearOutdatedSubscriptionsJob } from '../jobs/billing-jobs.js';
export { signCloudPayments } from '../provider/cloudpayments-signature.js';
export { rebuildReadModels } from '../subscriptions/rebuild-read-models.js';
