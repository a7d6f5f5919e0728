import { FREE_PLAN_LIMITS } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import type { EntitlementsAnswer } from './entitlements.client.js';

/**
 * Records what billing answered about a user's paid access, unless an answer asked later is recorded already.
 * Paid: until the entitlement's `endsAt` (null: no end). Not paid: a user known to have had paid access has it
 * ended by the time billing was asked at the latest; a user never seen with paid access gets no row (the plan
 * gate kept everything they have within the free plan), unless `beyondFreePlan`: the caller found them holding
 * active notifications the free plan does not keep (`usersBeyondFreePlanWithoutRow`), which only paid access
 * they had before alerts recorded it gave them.
 */
export async function recordPaidAccess(db: SqlClient, { entitlements: e, askedAt }: EntitlementsAnswer, opts: { beyondFreePlan?: boolean } = {}): Promise<void> {
  if (e.paid) {
    await db.query(
      `insert into paid_access (user_id, paid_until, asked_at) values ($1, $2, $3)
       on conflict (user_id) do update set paid_until = excluded.paid_until, asked_at = excluded.asked_at where paid_access.asked_at < excluded.asked_at`,
      [e.userId, e.endsAt, askedAt],
    );
    return;
  }
  // A row written meanwhile is left to the update below, which orders the answers.
  if (opts.beyondFreePlan) await db.query('insert into paid_access (user_id, paid_until, asked_at) values ($1, $2, $2) on conflict (user_id) do nothing', [e.userId, askedAt]);
  await db.query(`update paid_access set paid_until = least(coalesce(paid_until, 'infinity'), $2), asked_at = $2 where user_id = $1 and asked_at < $2`, [e.userId, askedAt]);
}

/**
 * The users among `userIds` whose paid access ended by `now`, each with the notifications the free plan keeps
 * firing: their oldest active notifications (by creation) on a target type the free plan allows, as many as it
 * allows active (services/alerts/README.md, "When paid access ends"). A user not in the map fires as usual.
 * One statement, whatever the number of users: evaluation calls it once per batch.
 */
export async function freePlanKeeps(db: SqlClient, userIds: readonly string[], now: Date): Promise<Map<string, ReadonlySet<number>>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.query<{ user_id: string; kept: string[] }>(
    `select p.user_id, array(select n.id::text from notifications n
                              where n.user_id = p.user_id and n.is_active and n.targetable_type = any($3::text[]) order by n.id limit $4) as kept
       from paid_access p where p.user_id = any($1::text[]) and p.paid_until <= $2`,
    [userIds, now, FREE_PLAN_LIMITS.notificationTargets, FREE_PLAN_LIMITS.activeNotifications],
  );
  return new Map(rows.map((r) => [r.user_id, new Set(r.kept.map(Number))]));
}

/**
 * Users with active notifications the free plan would not keep (more than it allows active, or on a target type it
 * does not allow) and no paid_access row: users whose paid access began before alerts recorded it
 * (`jobs/paid-access.job.ts`). One pass over the active notifications, by user id.
 */
export async function usersBeyondFreePlanWithoutRow(db: SqlClient): Promise<string[]> {
  const rows = await db.query<{ user_id: string }>(
    `select n.user_id from notifications n
      where n.is_active and not exists (select 1 from paid_access p where p.user_id = n.user_id)
      group by n.user_id
     having count(*) > $1 or bool_or(n.targetable_type <> all($2::text[]))
      order by n.user_id`,
    [FREE_PLAN_LIMITS.activeNotifications, FREE_PLAN_LIMITS.notificationTargets],
  );
  return rows.map((r) => r.user_id);
}

/** Whether a notification is paused: active, but its user's paid access ended and the free plan does not keep it. */
export function isPaused(n: { id: number; userId: string; isActive: boolean }, keeps: ReadonlyMap<string, ReadonlySet<number>>): boolean {
  const kept = keeps.get(n.userId);
  return n.isActive && kept !== undefined && !kept.has(n.id);
}
