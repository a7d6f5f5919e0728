export * from './billing-events.js';
export * from './billing.contract.js';
