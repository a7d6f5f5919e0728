import { type AlertsEvent, AlertsEventTypes, assertNever, decodeAlertsEvent, type NotificationFiredV1 } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, eventStreamSource, type Logger, type Tx } from '@invest/platform';

export const NOTIFICATION_FIRED_DURABLE = 'delivery__notification-fired';

/**
 * Records a firing in its user's open message group, opening one when there is none (due `windowMs` after now):
 * the firings of one rate batch, or of a short window, become one message per channel. A group the dispatcher is
 * sealing meanwhile is waited for (its row lock) and, sealed, no longer taken: the firing opens the next one.
 */
export async function recordFiring(tx: Tx, firing: NotificationFiredV1, now: Date, windowMs: number): Promise<void> {
  // One open group per user, whichever instance receives the user's firings.
  await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`delivery-group:${firing.userId}`]);
  const seen = await tx.query('select 1 from received_firings where firing_id = $1', [firing.firingId]);
  if (seen.length > 0) return;
  const [open] = await tx.query<{ id: string }>('select id::text from message_groups where user_id = $1 and sealed_at is null order by id limit 1 for update', [firing.userId]);
  const groupId =
    open?.id ??
    (
      await tx.query<{ id: string }>('insert into message_groups (user_id, opened_at, due_at) values ($1, $2, $3) returning id::text', [
        firing.userId,
        now,
        new Date(now.getTime() + windowMs),
      ])
    )[0]!.id;
  await tx.query('insert into received_firings (firing_id, user_id, notification_id, event, group_id, received_at) values ($1, $2, $3, $4, $5, $6)', [
    firing.firingId,
    firing.userId,
    firing.notificationId,
    JSON.stringify(firing),
    groupId,
    now,
  ]);
}

/** Durable consumer `delivery__notification-fired` on ALERTS_EVENTS (NotificationFired only). */
export function createNotificationFiredConsumer(opts: { db: Db; bus: Bus; logger: Logger; clock: () => Date; groupWindowMs: number }): DurableConsumer<AlertsEvent> {
  return new DurableConsumer<AlertsEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'alerts', AlertsEventTypes.NotificationFired),
    durableName: NOTIFICATION_FIRED_DURABLE,
    logger: opts.logger,
    decode: decodeAlertsEvent,
    handle: async (event, tx) => {
      switch (event.type) {
        case AlertsEventTypes.NotificationFired:
          return recordFiring(tx, event.data, opts.clock(), opts.groupWindowMs);
        default:
          // One type in the catalog: the event itself is not a union TypeScript narrows, its type is.
          return assertNever(event.type, 'alerts event');
      }
    },
  });
}
