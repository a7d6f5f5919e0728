import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createHealthController } from '@invest/platform';
import { AlertsHandler } from './alerts.handler.js';
import { NOTIFICATION_EVENTS_SERVICE, NOTIFICATION_SERVICE } from './alerts.tokens.js';
import type { NotificationEventsService } from './inbox/notification-events.service.js';
import type { NotificationService } from './notifications/notification.service.js';

const RESOURCES = Symbol('ALERTS_RESOURCES');

/** Ties the service's background work to Nest's lifecycle: app.close() and SIGINT/SIGTERM stop it too. */
class ResourcesShutdown implements OnApplicationShutdown {
  constructor(private readonly stop: () => Promise<void>) {}
  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}

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
        { provide: RESOURCES, useValue: new ResourcesShutdown(s.stopResources) },
      ],
    };
  }
}
