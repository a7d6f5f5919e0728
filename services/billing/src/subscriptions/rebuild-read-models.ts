import type { BillingEvent } from '@invest/contracts';
import type { Db } from '@invest/platform';
import { PROJECTED_TABLES, projectBillingEvent } from './subscription.projection.js';

/**
 * Rebuilds the read models from the event store in one transaction (readers see the old tables until it
 * commits): truncates them and projects every billing event in stream order. Returns the events applied.
 */
export async function rebuildReadModels(db: Db): Promise<number> {
  return db.transaction(async (tx) => {
    // No command may append while the tables are rebuilt from a snapshot of the events.
    await tx.query('lock table es_events in share mode');
    await tx.query(`truncate ${PROJECTED_TABLES.join(', ')}`);
    const events = await tx.query<{ type: BillingEvent['type']; data: unknown; stream_position: string }>(
      "select type, data, stream_position::text from es_events where stream_name like 'billing-%' order by global_position",
    );
    for (const e of events) await projectBillingEvent(tx, { type: e.type, data: e.data } as BillingEvent, Number(e.stream_position));
    return events.length;
  });
}
