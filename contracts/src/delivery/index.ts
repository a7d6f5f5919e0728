export * from './delivery.contract.js';
