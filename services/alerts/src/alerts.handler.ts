import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { type Db, idempotencyKeyOf, requireUser } from '@invest/platform';
import { deliverableFirings } from './inbox/deliverable-firings.query.js';
import type { NotificationEventsService } from './inbox/notification-events.service.js';
import type { NotificationService } from './notifications/notification.service.js';

/** `alerts.*`: the user's notifications and their fired events (the inbox). */
export function createAlertsHandler({ db, notifications, events }: { db: Db; notifications: NotificationService; events: NotificationEventsService }) {
  @Controller()
  class AlertsHandler {
    @MessagePattern(Subjects.alerts.priceAlertsCreate)
    createPriceAlert(@Payload() req: RpcRequest<unknown>) {
      return notifications.createPriceAlert(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
    }

    @MessagePattern(Subjects.alerts.priceChangeAlertsCreate)
    createPriceChangeAlert(@Payload() req: RpcRequest<unknown>) {
      return notifications.createPriceChangeAlert(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
    }

    @MessagePattern(Subjects.alerts.notificationsList)
    list(@Payload() req: RpcRequest<unknown>) {
      return notifications.list(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.alerts.notificationsSwitch)
    switch(@Payload() req: RpcRequest<unknown>) {
      return notifications.switch(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.alerts.notificationsDelete)
    delete(@Payload() req: RpcRequest<unknown>) {
      return notifications.delete(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.alerts.notificationEventsList)
    listEvents(@Payload() req: RpcRequest<unknown>) {
      return events.list(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.alerts.notificationEventsMarkRead)
    markRead(@Payload() req: RpcRequest<unknown>) {
      return events.markRead(requireUser(req.meta), req.data);
    }

    @MessagePattern(Subjects.alerts.firingsDeliverable)
    deliverable(@Payload() req: RpcRequest<unknown>) {
      // Internal: each firing names its user, and only that user's firing is in the answer.
      return deliverableFirings(db, req.data);
    }
  }
  return AlertsHandler;
}
