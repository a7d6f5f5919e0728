/** Dependency-injection tokens of the alerts service (plain objects built in createAlertsApp). */
export const NOTIFICATION_SERVICE = Symbol('NOTIFICATION_SERVICE');
export const NOTIFICATION_EVENTS_SERVICE = Symbol('NOTIFICATION_EVENTS_SERVICE');
