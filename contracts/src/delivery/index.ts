export * from './delivery.contract.js';
export * from './email.contract.js';
