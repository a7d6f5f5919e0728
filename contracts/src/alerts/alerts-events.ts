import { z } from 'zod';
import { type BusEvent, decodeEvent, type EventOf, eventTypeNames, type UnknownEvent } from '../common/events.js';
import { crossedAssetSchema, firingExplanationSchema, firingTypeSchema } from './alerts.contract.js';

/**
 * `alerts.events.NotificationFired` v1 (one subject for all: no id in it): one firing of a notification,
 * rendered in every locale, with the assets that crossed and why. Other delivery channels (push, e-mail,
 * chat) read it; the envelope's id (the JetStream msgID) is the firing's, so each firing is one message.
 * An account notice (billing's ChargeFailed, recorded in the inbox) is published the same way, with no
 * notification and no explanation (docs/decisions/0036-billing-notices.md).
 */
export const notificationFiredV1Schema = z.object({
  version: z.literal(1),
  firingId: z.number().int(),
  userId: z.string(),
  /** Null for an account notice (`type` `charge-failed`), which is of no notification. */
  notificationId: z.number().int().nullable(),
  type: firingTypeSchema,
  /** In the default locale (ru); `texts` has every locale. */
  title: z.string(),
  body: z.string(),
  texts: z.record(z.string(), z.object({ title: z.string(), body: z.string() })),
  path: z.string(),
  assets: z.array(crossedAssetSchema),
  /** Null for an account notice. */
  explanation: firingExplanationSchema.nullable(),
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
