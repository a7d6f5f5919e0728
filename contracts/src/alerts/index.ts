export * from './alerts.contract.js';
export * from './alerts-events.js';
