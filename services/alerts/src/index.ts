export { createAlertsApp, type AlertsApp, type AlertsAppOptions } from './alerts.app.js';
