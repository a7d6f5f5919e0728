import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type RpcRequest, Subjects } from '@invest/contracts';
import { idempotencyKeyOf, requireUser } from '@invest/platform';
import { NOTIFICATION_EVENTS_SERVICE, NOTIFICATION_SERVICE } from './alerts.tokens.js';
import type { NotificationEventsService } from './inbox/notification-events.service.js';
import type { NotificationService } from './notifications/notification.service.js';

/** `alerts.*`: the user's notifications and their fired events (the inbox). */
@Controller()
export class AlertsHandler {
  constructor(
    @Inject(NOTIFICATION_SERVICE) private readonly notifications: NotificationService,
    @Inject(NOTIFICATION_EVENTS_SERVICE) private readonly events: NotificationEventsService,
  ) {}

  @MessagePattern(Subjects.alerts.priceAlertsCreate)
  createPriceAlert(@Payload() req: RpcRequest<unknown>) {
    return this.notifications.createPriceAlert(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
  }

  @MessagePattern(Subjects.alerts.priceChangeAlertsCreate)
  createPriceChangeAlert(@Payload() req: RpcRequest<unknown>) {
    return this.notifications.createPriceChangeAlert(requireUser(req.meta), req.data, idempotencyKeyOf(req.meta));
  }

  @MessagePattern(Subjects.alerts.notificationsList)
  list(@Payload() req: RpcRequest<unknown>) {
    return this.notifications.list(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.alerts.notificationsSwitch)
  switch(@Payload() req: RpcRequest<unknown>) {
    return this.notifications.switch(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.alerts.notificationsDelete)
  delete(@Payload() req: RpcRequest<unknown>) {
    return this.notifications.delete(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.alerts.notificationEventsList)
  listEvents(@Payload() req: RpcRequest<unknown>) {
    return this.events.list(requireUser(req.meta), req.data);
  }

  @MessagePattern(Subjects.alerts.notificationEventsMarkRead)
  markRead(@Payload() req: RpcRequest<unknown>) {
    return this.events.markRead(requireUser(req.meta), req.data);
  }
}
