import type { AssetRef } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

export type GroupType = 'portfolio' | 'watchlist';

/** Adds assets to a portfolio's or watchlist's membership (ignored once the target was deleted upstream). */
export async function addMembers(tx: SqlClient, target: { type: GroupType; id: number; userId: string }, assets: readonly AssetRef[]): Promise<void> {
  if (assets.length === 0) return;
  await tx.query(
    `insert into memberships (target_type, target_id, asset_type, asset_id, user_id)
     select $1, $2, a.type, a.id, $3 from unnest($4::text[], $5::bigint[]) as a(type, id)
     where not exists (select 1 from deleted_targets d where d.target_type = $1 and d.target_id = $2)
     on conflict do nothing`,
    [target.type, target.id, target.userId, assets.map((a) => a.type), assets.map((a) => a.id)],
  );
}

/**
 * Claims a membership change of (target, asset) at `streamPosition` (the source stream orders a target's
 * changes: `portfolio-<id>`, `watchlist-<id>`); false when a change at the same or a later position was
 * applied already, so this one is stale and must be ignored. A per-target advisory lock serialises the
 * instances applying changes of one target.
 */
export async function claimMembershipChange(tx: SqlClient, target: { type: GroupType; id: number }, asset: AssetRef, streamPosition: number): Promise<boolean> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`alerts-membership:${target.type}:${target.id}`]);
  const rows = await tx.query(
    `insert into membership_changes (target_type, target_id, asset_type, asset_id, stream_position) values ($1, $2, $3, $4, $5)
     on conflict (target_type, target_id, asset_type, asset_id) do update set stream_position = excluded.stream_position
     where membership_changes.stream_position < excluded.stream_position
     returning 1`,
    [target.type, target.id, asset.type, asset.id, streamPosition],
  );
  return rows.length > 0;
}

export async function removeMember(tx: SqlClient, target: { type: GroupType; id: number }, asset: AssetRef): Promise<void> {
  await tx.query('delete from memberships where target_type = $1 and target_id = $2 and asset_type = $3 and asset_id = $4', [target.type, target.id, asset.type, asset.id]);
}

/** A target deleted upstream: its membership goes, its notifications are deactivated, late events ignored. */
export async function targetDeleted(tx: SqlClient, target: { type: GroupType; id: number }, now: Date): Promise<number> {
  await tx.query('delete from memberships where target_type = $1 and target_id = $2', [target.type, target.id]);
  // deleted_targets refuses every later change of the target: its per-asset positions are no longer needed.
  await tx.query('delete from membership_changes where target_type = $1 and target_id = $2', [target.type, target.id]);
  await tx.query('insert into deleted_targets (target_type, target_id, deleted_at) values ($1, $2, $3) on conflict do nothing', [target.type, target.id, now]);
  const rows = await tx.query<{ id: string }>(
    'update notifications set is_active = false, updated_at = $3 where targetable_type = $1 and targetable_id = $2 and is_active returning id::text',
    [target.type, target.id, now],
  );
  return rows.length;
}

export async function isDeleted(db: SqlClient, target: { type: GroupType; id: number }): Promise<boolean> {
  const rows = await db.query('select 1 from deleted_targets where target_type = $1 and target_id = $2', [target.type, target.id]);
  return rows.length > 0;
}
