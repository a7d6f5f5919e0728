import { type DynamicModule, Module } from '@nestjs/common';
import { createHealthController, resourcesShutdownProvider } from '@invest/platform';
import { AlertsHandler } from './alerts.handler.js';
import { NOTIFICATION_EVENTS_SERVICE, NOTIFICATION_SERVICE } from './alerts.tokens.js';
import type { NotificationEventsService } from './inbox/notification-events.service.js';
import type { NotificationService } from './notifications/notification.service.js';

/** The NATS handlers of the alerts service, wired to services built (and owned) by createAlertsApp. */
@Module({})
export class AlertsModule {
  static register(s: { notifications: NotificationService; events: NotificationEventsService; stopResources(): Promise<void> }): DynamicModule {
    return {
      module: AlertsModule,
      controllers: [createHealthController('alerts'), AlertsHandler],
      providers: [
        { provide: NOTIFICATION_SERVICE, useValue: s.notifications },
        { provide: NOTIFICATION_EVENTS_SERVICE, useValue: s.events },
        resourcesShutdownProvider(s.stopResources),
      ],
    };
  }
}
