import type { AssetRef } from '@invest/contracts';
import type { SqlClient, Tx } from '@invest/platform';
import type { AssetLookup } from '../prices/asset-lookup.service.js';
import type { CatalogAsset } from '../prices/asset-catalog.repository.js';

/** The first key of the asset use locks among this database's advisory locks. */
const ASSET_USE_LOCK_SPACE = 0x617573; // "aus"

/**
 * The use lock of a custom asset, until `tx` ends: what adds a use of it (a deal, a watchlist item) holds
 * from its check that the asset exists to its commit, and what `portfolios.asset-uses.get` takes before it
 * reads the uses. A screener deleting the asset hides it first, then asks: an add that passed its check is
 * waited for and its use seen; a later add's check finds the asset gone. Market assets are never deleted
 * by a user: no lock.
 */
export async function lockAssetUse(tx: SqlClient, asset: AssetRef): Promise<void> {
  if (asset.type !== 'custom_asset') return;
  await tx.query(`select pg_advisory_xact_lock(${ASSET_USE_LOCK_SPACE}, hashtext($1))`, [`${asset.type}:${asset.id}`]);
}

/**
 * `assets.require` for a use about to be added in `tx`: a custom asset is checked under its use lock, in `tx`
 * (its connection serves the catalog reads too: a transaction waiting for a second connection could exhaust
 * the pool). Called before `tx` as well for the other types, the check is cheap and needs no lock.
 */
export async function requireAssetForUse(tx: Tx, assets: AssetLookup, asset: AssetRef, userId: string): Promise<CatalogAsset> {
  await lockAssetUse(tx, asset);
  return assets.require(asset, userId, tx);
}
