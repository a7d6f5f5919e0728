import type { Db, Tx } from '../db/database.js';

/**
 * The consumer's inbox (`es_inbox`): an event's effect and its row (consumer, event id) commit in one
 * transaction, so a redelivery of an applied event (a crash before the ack, a duplicate publish) finds the row
 * and changes nothing. The event id, not the JetStream sequence: a re-publish after the duplicate window is
 * still the same event. False when the event was applied before.
 */
export async function applyOnce<E extends { id: string }>(tx: Tx, consumer: string, event: E, handle: (event: E, tx: Tx) => Promise<void>): Promise<boolean> {
  const fresh = await tx.query('insert into es_inbox (consumer, message_id) values ($1, $2) on conflict do nothing returning 1', [consumer, event.id]);
  if (fresh.length === 0) return false;
  await handle(event, tx);
  return true;
}

/** Whether an event was applied by this consumer (by any instance of it). */
export async function inInbox(db: Db, consumer: string, eventId: string): Promise<boolean> {
  return (await db.query('select 1 from es_inbox where consumer = $1 and message_id = $2', [consumer, eventId])).length > 0;
}

/**
 * Deletes a consumer's inbox rows older than `retentionMs`, in batches of 5,000 (short transactions, whatever has
 * piled up); returns how many. A redelivery brings back nothing older than the stream keeps, so older rows only
 * grow the table.
 */
export async function pruneInbox(db: Db, consumer: string, retentionMs: number): Promise<number> {
  let pruned = 0;
  for (;;) {
    const rows = await db.query(
      `delete from es_inbox where ctid = any (array(
         select ctid from es_inbox where consumer = $1 and processed_at < now() - $2 * interval '1 millisecond' limit 5000))
       returning 1`,
      [consumer, retentionMs],
    );
    pruned += rows.length;
    if (rows.length < 5000) return pruned;
  }
}
