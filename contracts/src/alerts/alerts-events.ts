import { z } from 'zod';
import { type BusEvent, decodeEvent, type EventOf, eventTypeNames, type UnknownEvent } from '../common/events.js';
import { crossedAssetSchema, firingExplanationSchema, notificationTypeCodeSchema } from './alerts.contract.js';

/**
 * `alerts.events.NotificationFired` v1 (one subject for all: no id in it): one firing of a notification,
 * rendered in every locale, with the assets that crossed and why. Other delivery channels (push, e-mail,
 * chat) read it; the envelope's id (the JetStream msgID) is the firing's, so each firing is one message.
 */
export const notificationFiredV1Schema = z.object({
  version: z.literal(1),
  firingId: z.number().int(),
  userId: z.string(),
  notificationId: z.number().int(),
  type: notificationTypeCodeSchema,
  /** In the default locale (ru); `texts` has every locale. */
  title: z.string(),
  body: z.string(),
  texts: z.record(z.string(), z.object({ title: z.string(), body: z.string() })),
  path: z.string(),
  assets: z.array(crossedAssetSchema),
  explanation: firingExplanationSchema,
  firedAt: z.string(),
});
export type NotificationFiredV1 = z.infer<typeof notificationFiredV1Schema>;

/** Every integration event on ALERTS_EVENTS, with the data versions this release reads. */
export const alertsEvents = {
  NotificationFired: notificationFiredV1Schema,
};

/** Type names of ALERTS_EVENTS: `AlertsEventTypes.NotificationFired === 'NotificationFired'`. */
export const AlertsEventTypes = eventTypeNames(alertsEvents);
export type AlertsEventType = keyof typeof alertsEvents;

/** An event of ALERTS_EVENTS; `switch (event.type)` narrows its data. */
export type AlertsEvent = EventOf<typeof alertsEvents>;

/** The typed ALERTS_EVENTS event, or `UnknownEvent` when this release does not read its type or version. */
export function decodeAlertsEvent(event: BusEvent): AlertsEvent | UnknownEvent {
  return decodeEvent(alertsEvents, event);
}
