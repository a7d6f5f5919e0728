import { z } from 'zod';
import { assetTypeSchema } from '../common/assets.js';

/**
 * `market.events.AssetUpdated` v1: an asset's description changed (a custom asset renamed, re-ticked or moved
 * to another currency). Carries the whole description after the change. Recorded on the asset's own stream
 * (`asset-<type>-<id>`), so `streamPosition` orders one asset's changes: a consumer applies an event only
 * when its position is after the last one it applied. Rates travel in RatesUpdated.
 */
export const assetUpdatedV1Schema = z.object({
  version: z.literal(1),
  assetType: assetTypeSchema,
  assetId: z.number().int().positive(),
  ticker: z.string(),
  name: z.string().nullable(),
  currency: z.string().nullable(),
});
export type AssetUpdatedV1 = z.infer<typeof assetUpdatedV1Schema>;

/**
 * `market.events.AssetDeleted` v1: an asset no longer exists (a custom asset its owner deleted). Same stream
 * as AssetUpdated. Nothing may refer to it from now on; references made before stay as history.
 */
export const assetDeletedV1Schema = z.object({
  version: z.literal(1),
  assetType: assetTypeSchema,
  assetId: z.number().int().positive(),
  /** The owner of a custom asset. */
  userId: z.string().nullable(),
});
export type AssetDeletedV1 = z.infer<typeof assetDeletedV1Schema>;
