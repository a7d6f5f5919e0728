import { z } from 'zod';
import { assetRefSchema, assetTypeSchema } from '../common/assets.js';

/** `screener.assets.get`: look assets up by reference (validation of references, catalog warm-up). */
export const getAssetsRequestSchema = z.object({
  refs: z.array(assetRefSchema).min(1).max(500),
});
export type GetAssetsRequest = z.infer<typeof getAssetsRequestSchema>;

export const assetInfoSchema = z.object({
  id: z.number().int(),
  type: assetTypeSchema,
  ticker: z.string(),
  name: z.string().nullable(),
  currency: z.string().nullable(),
  current_rate: z.number().nullable(),
  price_change_percentage_24h: z.number().nullable(),
  rate_updated_at: z.string().nullable(),
});
export type AssetInfo = z.infer<typeof assetInfoSchema>;

/** Reply: the assets found; references not in the reply do not exist. */
export interface GetAssetsReply {
  data: AssetInfo[];
}
