import { type AssetDeletedV1, type AssetUpdatedV1, assetDeletedV1Schema, assetStreamName, assetUpdatedV1Schema, MarketEventTypes } from '@invest/contracts';
import type { Tx } from '@invest/platform/db/database';
import { appendToStream } from '@invest/platform/event-store/event-store';

/** Event store stream of one asset's description events: its position orders that asset's changes. */
export const assetStream = assetStreamName;

/** Records AssetUpdated (the description after the change) in the caller's transaction, the one that changed it. */
export function recordAssetUpdated(tx: Tx, change: Omit<AssetUpdatedV1, 'version'>) {
  const data = assetUpdatedV1Schema.parse({ version: 1, ...change });
  return appendToStream(tx, assetStream(data.assetType, data.assetId), [{ type: MarketEventTypes.AssetUpdated, data }]);
}

/** Records AssetDeleted in the caller's transaction, the one that deleted the asset. */
export function recordAssetDeleted(tx: Tx, deleted: Omit<AssetDeletedV1, 'version'>) {
  const data = assetDeletedV1Schema.parse({ version: 1, ...deleted });
  return appendToStream(tx, assetStream(data.assetType, data.assetId), [{ type: MarketEventTypes.AssetDeleted, data }]);
}
