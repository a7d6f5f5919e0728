import { type AlertsEvent, AlertsEventTypes, assertNever, decodeAlertsEvent, type NotificationFiredV1 } from '@invest/contracts';
import { type Bus, currentContext, type Db, DurableConsumer, eventStreamSource, type Logger, type Tx } from '@invest/platform';
import { traceparentOf } from '@invest/platform/tracing/tracing';

export const NOTIFICATION_FIRED_DURABLE = 'delivery__notification-fired';

/**
 * Records firings, each in its user's open message group, opening one when there is none: the firings of one
 * rate batch (they come within milliseconds), or of a short window, become one message per channel. A group is
 * due `settleMs` after its last firing, and at most `windowMs` after its first. One statement for the lot; a user
 * has at most one open group (a unique index), and users are taken in order, so two batches never wait on each
 * other in a cycle. A group the dispatcher is sealing meanwhile is waited for (its row lock) and, sealed, no
 * longer taken: the firing opens the next one. A firing recorded before is left as it is.
 */
export async function recordFirings(tx: Tx, firings: readonly NotificationFiredV1[], now: Date, windowMs: number, settleMs = windowMs): Promise<void> {
  if (firings.length === 0) return;
  const settled = new Date(now.getTime() + Math.min(settleMs, windowMs));
  await tx.query(
    `with f as (
       select * from unnest($1::bigint[], $2::text[], $3::bigint[], $4::jsonb[]) as f(firing_id, user_id, notification_id, event)
        where not exists (select 1 from received_firings r where r.firing_id = f.firing_id)),
     g as (
       insert into message_groups as m (user_id, opened_at, due_at)
       select distinct user_id, $5::timestamptz, $6::timestamptz from f order by user_id
       on conflict (user_id) where sealed_at is null
       do update set due_at = least(m.opened_at + $7 * interval '1 millisecond', greatest(m.due_at, excluded.due_at))
       returning id, user_id)
     insert into received_firings (firing_id, user_id, notification_id, event, group_id, received_at, traceparent)
     select f.firing_id, f.user_id, f.notification_id, f.event, g.id, $5, $8::text from f join g using (user_id)
     on conflict (firing_id) do nothing`,
    [
      firings.map((f) => f.firingId),
      firings.map((f) => f.userId),
      firings.map((f) => f.notificationId),
      firings.map((f) => JSON.stringify(f)),
      now,
      settled,
      windowMs,
      // The consumer's span (tracing), which the message's send continues.
      traceparentOf(currentContext()?.trace) ?? null,
    ],
  );
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
    // A rate batch fires for hundreds of users at once: what arrives together is recorded in one transaction
    // (bench delivery: 1,000 firings took 1.2-1.6 s one transaction each, 8 at once; 0.2-0.5 s so). Their order
    // does not matter. Pulls of 200 rather than 50: a burst is read in fewer round trips.
    batchSize: 200,
    handleMany: async (events, tx) => {
      await recordFirings(tx, events.map((e) => e.data), opts.clock(), opts.groupWindowMs, opts.groupSettleMs);
      opts.onRecorded?.();
    },
    decode: decodeAlertsEvent,
    handle: async (event, tx) => {
      switch (event.type) {
        case AlertsEventTypes.NotificationFired:
          await recordFirings(tx, [event.data], opts.clock(), opts.groupWindowMs, opts.groupSettleMs);
          opts.onRecorded?.();
          return;
        default:
          // One type in the catalog: the event itself is not a union TypeScript narrows, its type is.
          return assertNever(event.type, 'alerts event');
      }
    },
  });
}
