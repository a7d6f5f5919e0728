import { type AssetRef, ErrorCode } from '@invest/contracts';
import { lockKey, ServiceError, type SqlClient, type Tx } from '@invest/platform';
import { OPEN_QUANTITY } from '../deals/deal.repository.js';
import type { AssetLookup } from '../prices/asset-lookup.service.js';

/**
 * A custom asset's deletion and the adds of new uses of it (a deal, a watchlist item) agree through two things
 * in this database. The use lock (a transaction-level advisory lock per asset): an add holds it from its check
 * of the fence to its commit, and `portfolios.asset-uses.get` takes it to read the uses. The fence: that read,
 * finding none, leaves one (asset_deletion_fences). The screener has hidden the asset before it asks, so an add
 * whose check with the screener began after the fence sees no asset; one whose check began before may have seen
 * it, and finds the fence when it takes the lock (refused). An add that took the lock first is seen as a use. The
 * check with the screener runs before the add's transaction: no connection or lock is held across it.
 */

/** Market assets are never deleted by a user: neither lock nor fence. */
const fenced = (asset: AssetRef) => asset.type === 'custom_asset';

/** The use lock of `asset` until `tx` ends. */
export async function lockAssetUse(tx: SqlClient, asset: AssetRef): Promise<void> {
  if (!fenced(asset)) return;
  await tx.query('select pg_advisory_xact_lock($1::bigint)', [lockKey(`asset-use:${asset.type}:${asset.id}`).toString()]);
}

/** The newest fence of `asset` (0: none): read before the check with the screener. */
async function latestFence(db: SqlClient, asset: AssetRef): Promise<number> {
  if (!fenced(asset)) return 0;
  const [row] = await db.query<{ id: string }>('select coalesce(max(id), 0)::text as id from asset_deletion_fences where asset_type = $1 and asset_id = $2', [asset.type, asset.id]);
  return Number(row!.id);
}

/** Takes the use lock; whether a deletion has asked about `asset` since the fence `seen` was the newest. */
async function fencedSince(tx: Tx, asset: AssetRef, seen: number): Promise<boolean> {
  if (!fenced(asset)) return false;
  await lockAssetUse(tx, asset);
  return (await tx.query('select 1 from asset_deletion_fences where asset_type = $1 and asset_id = $2 and id > $3 limit 1', [asset.type, asset.id, seen])).length > 0;
}

const missing = (asset: AssetRef) => ServiceError.validation({ 'assetable.id': [`The selected ${asset.type} (id ${asset.id}) does not exist.`] });

/** A checked asset use, confirmed in the create's transaction. */
export interface AssetUse {
  confirm(tx: Tx): Promise<void>;
}

/**
 * Checks `asset` for a new use by `userId` (the screener is asked, before any transaction), then `confirm(tx)` in
 * the add's transaction, before it writes: under the use lock, refused (422, as an asset that does not exist) if
 * a deletion asked about it meanwhile.
 */
export async function checkAssetForUse(db: SqlClient, assets: AssetLookup, asset: AssetRef, userId: string): Promise<AssetUse> {
  const seen = await latestFence(db, asset);
  await assets.require(asset, userId);
  return {
    confirm: async (tx) => {
      if (await fencedSince(tx, asset, seen)) throw missing(asset);
    },
  };
}

/**
 * For a change that may open a position again (deleting a sell): whether `asset` may be used by `userId` now,
 * asked before the transaction, and `confirm(tx)` for when it does open one: refused (422 on `field`) if the
 * asset is gone or a deletion asked about it meanwhile.
 */
export async function checkAssetForReopening(db: SqlClient, assets: AssetLookup, asset: AssetRef, userId: string, message: string): Promise<{ confirm(tx: Tx): Promise<void> }> {
  if (!fenced(asset)) return { confirm: () => Promise.resolve() };
  const seen = await latestFence(db, asset);
  const exists = await assets.require(asset, userId).then(
    () => true,
    (err: unknown) => {
      if (err instanceof ServiceError && err.code === ErrorCode.Validation) return false;
      throw err;
    },
  );
  return {
    confirm: async (tx) => {
      if ((await fencedSince(tx, asset, seen)) || !exists) throw ServiceError.validation({ deal: [message] });
    },
  };
}

/**
 * Where `asset` is in use: portfolios with an open position in it, watchlists listing it; under its use lock.
 * Finding none, leaves a fence (see above) and forgets this asset's fences older than a day (no add takes that long).
 */
export async function usesOf(tx: Tx, asset: AssetRef): Promise<{ type: 'portfolio' | 'watchlist'; id: number }[]> {
  await lockAssetUse(tx, asset);
  const rows = await tx.query<{ type: 'portfolio' | 'watchlist'; id: string }>(
    `select 'portfolio' as type, portfolio_id as id from deals where asset_type = $1 and asset_id = $2
      group by portfolio_id having ${OPEN_QUANTITY} > 0
     union all
     select 'watchlist', watchlist_id from watchlist_items where asset_type = $1 and asset_id = $2
     order by 1, 2`,
    [asset.type, asset.id],
  );
  if (rows.length === 0 && fenced(asset)) {
    await tx.query(`delete from asset_deletion_fences where asset_type = $1 and asset_id = $2 and at < now() - interval '1 day'`, [asset.type, asset.id]);
    await tx.query('insert into asset_deletion_fences (asset_type, asset_id) values ($1, $2)', [asset.type, asset.id]);
  }
  return rows.map((r) => ({ type: r.type, id: Number(r.id) }));
}
