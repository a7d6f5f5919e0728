import type { AssetRef } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

export type GroupType = 'portfolio' | 'watchlist';

/** Adds assets to a portfolio's or watchlist's membership (ignored once the target was deleted upstream); a change event's, claimed first. */
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
 * Adds a create's snapshot of a portfolio's or watchlist's assets (asked of portfolios before the create's
 * transaction) to its membership, except the assets whose membership a change event already decided: a
 * `membership_changes` row means the read model holds that asset as its latest applied event left it, which
 * may be newer than the snapshot (an item removed while the create waited). Such an asset's later changes come
 * as events too. Under the target's membership lock, as changes are applied, so one applied meanwhile is seen.
 */
export async function addSnapshotMembers(tx: SqlClient, target: { type: GroupType; id: number; userId: string }, assets: readonly AssetRef[]): Promise<void> {
  if (assets.length === 0) return;
  await lockMembership(tx, target);
  await tx.query(
    `insert into memberships (target_type, target_id, asset_type, asset_id, user_id)
     select $1, $2, a.type, a.id, $3 from unnest($4::text[], $5::bigint[]) as a(type, id)
     where not exists (select 1 from deleted_targets d where d.target_type = $1 and d.target_id = $2)
       and not exists (select 1 from membership_changes c where c.target_type = $1 and c.target_id = $2 and c.asset_type = a.type and c.asset_id = a.id)
     on conflict do nothing`,
    [target.type, target.id, target.userId, assets.map((a) => a.type), assets.map((a) => a.id)],
  );
}

/** Serialises the membership changes of one target (across instances) with a create's snapshot of it. */
async function lockMembership(tx: SqlClient, target: { type: GroupType; id: number }): Promise<void> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`alerts-membership:${target.type}:${target.id}`]);
}

/**
 * Claims a membership change of (target, asset) at `streamPosition` (the source stream orders a target's
 * changes: `portfolio-<id>`, `watchlist-<id>`); false when a change at the same or a later position was
 * applied already, so this one is stale and must be ignored. A per-target advisory lock serialises the
 * instances applying changes of one target.
 */
export async function claimMembershipChange(tx: SqlClient, target: { type: GroupType; id: number }, asset: AssetRef, streamPosition: number): Promise<boolean> {
  await lockMembership(tx, target);
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

/** A portfolio or watchlist deleted upstream: its membership goes, its notifications are deactivated, late events ignored. */
export async function targetDeleted(tx: SqlClient, target: { type: GroupType; id: number }, now: Date): Promise<number> {
  const deactivated = await markTargetDeleted(tx, target, now);
  await tx.query('delete from memberships where target_type = $1 and target_id = $2', [target.type, target.id]);
  // deleted_targets refuses every later change of the target: its per-asset positions are no longer needed.
  await tx.query('delete from membership_changes where target_type = $1 and target_id = $2', [target.type, target.id]);
  return deactivated;
}

/**
 * A notification's target as `deleted_targets` and `lockTarget` name it: a portfolio or watchlist by its type,
 * an asset by `asset:<asset type>` (custom assets are the ones deleted upstream).
 */
export interface TargetKey {
  type: string;
  id: number;
}

export const assetTargetKey = (assetType: string, id: number): TargetKey => ({ type: `asset:${assetType}`, id });

export function targetKeyOf(n: { targetable_type: string; targetable_id: string | number; asset_type: string | null }): TargetKey {
  return n.targetable_type === 'asset' ? assetTargetKey(n.asset_type ?? '', Number(n.targetable_id)) : { type: n.targetable_type, id: Number(n.targetable_id) };
}

const TARGET_LOCK_SPACE = 0x746774; // "tgt"

/**
 * Serialises a target's deletion upstream with the creates and switch-ons that check it is still there: one
 * that checks `isDeleted` under this lock either sees the deletion's tombstone, or commits its active
 * notification before the deletion, waiting here, deactivates the target's notifications. Taken before any
 * notification row of the target is locked (a deletion updates them after it).
 */
export async function lockTarget(tx: SqlClient, key: TargetKey): Promise<void> {
  await tx.query(`select pg_advisory_xact_lock(${TARGET_LOCK_SPACE}, hashtext($1))`, [`${key.type}:${key.id}`]);
}

/** Records a target deleted upstream (later creates, switch-ons and membership events refuse it) and deactivates its notifications; returns how many. */
export async function markTargetDeleted(tx: SqlClient, key: TargetKey, now: Date): Promise<number> {
  await lockTarget(tx, key);
  await tx.query('insert into deleted_targets (target_type, target_id, deleted_at) values ($1, $2, $3) on conflict do nothing', [key.type, key.id, now]);
  const assetType = key.type.startsWith('asset:') ? key.type.slice('asset:'.length) : null;
  const rows = await tx.query<{ id: string }>(
    assetType === null
      ? 'update notifications set is_active = false, updated_at = $3 where targetable_type = $1 and targetable_id = $2 and is_active returning id::text'
      : "update notifications set is_active = false, updated_at = $3 where targetable_type = 'asset' and asset_type = $1 and targetable_id = $2 and is_active returning id::text",
    [assetType ?? key.type, key.id, now],
  );
  return rows.length;
}

export async function isDeleted(db: SqlClient, target: TargetKey): Promise<boolean> {
  const rows = await db.query('select 1 from deleted_targets where target_type = $1 and target_id = $2', [target.type, target.id]);
  return rows.length > 0;
}
