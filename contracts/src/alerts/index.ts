export * from './alerts.contract.js';
export * from './alerts-events.js';
export * from './notification-event-view.js';
