import { type DeliverableFiringsReply, deliverableFiringsRequestSchema, NotificationTypeIds } from '@invest/contracts';
import { parseOrThrow, type SqlClient } from '@invest/platform';

/**
 * `alerts.firings.deliverable`: which of `firing_ids` are the user's and may still go out. Delivery asks just before
 * sending, so nothing more is sent for a notification deleted (its firings go with it) or switched off after it
 * fired. A price-change stays active when it fires, so it must still be; a price-target is switched off by its own
 * firing (the user cannot have switched off what already is), so it only has to exist.
 */
export async function deliverableFirings(db: SqlClient, userId: string, input: unknown): Promise<DeliverableFiringsReply> {
  const { firing_ids: ids } = parseOrThrow(deliverableFiringsRequestSchema, input);
  if (ids.length === 0) return { data: { firing_ids: [] } };
  const rows = await db.query<{ id: string }>(
    `select f.id::text from notification_firings f join notifications n on n.id = f.notification_id
     where f.id = any($2::bigint[]) and f.user_id = $1 and n.user_id = $1 and (n.is_active or n.notification_type_id = $3)
     order by f.id`,
    [userId, ids, NotificationTypeIds.priceTarget],
  );
  return { data: { firing_ids: rows.map((r) => Number(r.id)) } };
}
