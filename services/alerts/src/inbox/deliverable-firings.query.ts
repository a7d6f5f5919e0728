import { type DeliverableFiringsReply, deliverableFiringsRequestSchema, NotificationTypeIds } from '@invest/contracts';
import { parseOrThrow, type SqlClient } from '@invest/platform';

/**
 * `alerts.firings.deliverable`: which of the given (user, firing) pairs are that user's firings and may still go out.
 * Delivery asks just before sending, so nothing more is sent for a notification deleted (its firings go with it) or
 * switched off after it fired. A price-change stays active when it fires, so it must still be; a price-target is
 * switched off by its own firing (the user cannot have switched off what already is), so it only has to exist. An
 * account notice (no notification: a declined charge) always may.
 */
export async function deliverableFirings(db: SqlClient, input: unknown): Promise<DeliverableFiringsReply> {
  const { firings } = parseOrThrow(deliverableFiringsRequestSchema, input);
  if (firings.length === 0) return { data: { firing_ids: [] } };
  const rows = await db.query<{ id: string }>(
    `select f.id::text from unnest($1::text[], $2::bigint[]) as v(user_id, firing_id)
       join notification_firings f on f.id = v.firing_id and f.user_id = v.user_id
       left join notifications n on n.id = f.notification_id and n.user_id = v.user_id
     where f.notification_id is null or n.is_active or n.notification_type_id = $3
     order by f.id`,
    [firings.map((f) => f.user_id), firings.map((f) => f.firing_id), NotificationTypeIds.priceTarget],
  );
  return { data: { firing_ids: rows.map((r) => Number(r.id)) } };
}
