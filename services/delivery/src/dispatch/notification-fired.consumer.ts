import { type AlertsEvent, AlertsEventTypes, assertNever, decodeAlertsEvent, type NotificationFiredV1 } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, eventStreamSource, type Logger, type Tx } from '@invest/platform';

export const NOTIFICATION_FIRED_DURABLE = 'delivery__notification-fired';

/**
 * Records a firing in its user's open message group, opening one when there is none: the firings of one rate
 * batch (they come within milliseconds), or of a short window, become one message per channel. The group is due
 * `settleMs` after its last firing, and at most `windowMs` after its first. A group the dispatcher is sealing
 * meanwhile is waited for (its row lock) and, sealed, no longer taken: the firing opens the next one.
 */
export async function recordFiring(tx: Tx, firing: NotificationFiredV1, now: Date, windowMs: number, settleMs = windowMs): Promise<void> {
  // One open group per user, whichever instance receives the user's firings.
  await tx.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`delivery-group:${firing.userId}`]);
  const seen = await tx.query('select 1 from received_firings where firing_id = $1', [firing.firingId]);
  if (seen.length > 0) return;
  const [open] = await tx.query<{ id: string }>('select id::text from message_groups where user_id = $1 and sealed_at is null order by id limit 1 for update', [firing.userId]);
  const settled = new Date(now.getTime() + Math.min(settleMs, windowMs));
  if (open) await tx.query("update message_groups set due_at = least(opened_at + $2 * interval '1 millisecond', greatest(due_at, $3)) where id = $1", [open.id, windowMs, settled]);
  const groupId = open?.id ?? (await tx.query<{ id: string }>('insert into message_groups (user_id, opened_at, due_at) values ($1, $2, $3) returning id::text', [firing.userId, now, settled]))[0]!.id;
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
export function createNotificationFiredConsumer(opts: {
  db: Db;
  bus: Bus;
  logger: Logger;
  clock: () => Date;
  groupWindowMs: number;
  groupSettleMs?: number;
  /** After a firing was recorded (its transaction may still be committing). */
  onRecorded?: () => void;
}): DurableConsumer<AlertsEvent> {
  return new DurableConsumer<AlertsEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'alerts', AlertsEventTypes.NotificationFired),
    durableName: NOTIFICATION_FIRED_DURABLE,
    logger: opts.logger,
    // A rate batch fires for hundreds of users at once; one after the other, recording them took ~4 ms each
    // (bench delivery: 1,000 firings in 4.3 s). Their order does not matter: a user's are grouped under its lock.
    concurrency: 8,
    decode: decodeAlertsEvent,
    handle: async (event, tx) => {
      switch (event.type) {
        case AlertsEventTypes.NotificationFired:
          await recordFiring(tx, event.data, opts.clock(), opts.groupWindowMs, opts.groupSettleMs);
          opts.onRecorded?.();
          return;
        default:
          // One type in the catalog: the event itself is not a union TypeScript narrows, its type is.
          return assertNever(event.type, 'alerts event');
      }
    },
  });
}
