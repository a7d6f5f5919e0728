import type { Db, Job } from '@invest/platform';

export const RETENTION_JOB = 'delivery:retention';

/** Groups deleted per transaction: a run never holds many rows locked, nor one long transaction. */
export const RETENTION_BATCH = 500;

export interface RetentionJobDeps {
  db: Db;
  clock: () => Date;
  /** Groups sealed longer ago than this go, with their firings and deliveries (`DELIVERY_RETENTION_DAYS`). */
  retentionDays: number;
  batchSize?: number;
}

/**
 * Deletes message groups sealed more than `retentionDays` ago whose deliveries are all finished (sent, failed,
 * skipped) or that had none, with their received firings and deliveries, a batch per transaction. A group with a
 * pending delivery stays whatever its age: it is still to be sent. `delivery_failures` is kept (the settings
 * screen shows the last failure per channel). Hourly under the scheduler's advisory lock; its summary line is
 * logged at info only when something was deleted (`runJob`).
 */
export function retentionJob(deps: RetentionJobDeps): Job {
  const batchSize = deps.batchSize ?? RETENTION_BATCH;
  return {
    name: RETENTION_JOB,
    schedule: { everyMinutes: 60 },
    async run() {
      const before = new Date(deps.clock().getTime() - deps.retentionDays * 24 * 60 * 60_000);
      let groups = 0;
      let firings = 0;
      let deliveries = 0;
      for (;;) {
        const batch = await deps.db.transaction(async (tx) => {
          // Sealed groups get no new deliveries and a finished delivery is never pending again, so the check holds
          // until the commit; skip locked leaves a group the dispatcher is working on to the next run.
          const ids = (
            await tx.query<{ id: string }>(
              `select g.id::text from message_groups g
                where g.sealed_at < $1
                  and not exists (select 1 from deliveries d where d.group_id = g.id and d.status = 'pending')
                order by g.sealed_at, g.id limit $2 for update skip locked`,
              [before, batchSize],
            )
          ).map((r) => r.id);
          if (ids.length === 0) return { groups: 0, firings: 0, deliveries: 0 };
          const f = await tx.query('delete from received_firings where group_id = any($1::bigint[]) returning 1', [ids]);
          const d = await tx.query('delete from deliveries where group_id = any($1::bigint[]) returning 1', [ids]);
          await tx.query('delete from message_groups where id = any($1::bigint[])', [ids]);
          return { groups: ids.length, firings: f.length, deliveries: d.length };
        });
        groups += batch.groups;
        firings += batch.firings;
        deliveries += batch.deliveries;
        if (batch.groups < batchSize) break;
      }
      return {
        fetched: groups,
        changed: groups,
        skipped: 0,
        deletedFirings: firings,
        deletedDeliveries: deliveries,
        notes: groups > 0 ? [`deleted ${groups} message groups sealed before ${before.toISOString()}, ${firings} firings, ${deliveries} deliveries`] : [],
      };
    },
  };
}
