export { createBillingApp, type BillingApp, type BillingAppOptions } from './billing.app.js';
