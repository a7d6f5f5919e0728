import { z } from 'zod';
import { assetRefSchema } from '../common/assets.js';

/**
 * `portfolios.asset-uses.get`: where one asset is in use now, read under the asset's use lock (which a deal or
 * watchlist item added on a custom asset holds from its fence check to its commit); finding none, it leaves a fence.
 * The screener asks before it deletes a custom asset it has already hidden: an add under way is waited for and
 * seen, one whose check saw the asset before it was hidden finds the fence, a later one finds the asset gone.
 * Internal (no user; not routed by the gateway).
 */
export const getAssetUsesRequestSchema = z.object({ asset: assetRefSchema });
export type GetAssetUsesRequest = z.infer<typeof getAssetUsesRequestSchema>;

/** A portfolio holding an open position in the asset, or a watchlist listing it. */
export const assetUseSchema = z.object({ type: z.enum(['portfolio', 'watchlist']), id: z.number().int().positive() });
export type AssetUse = z.infer<typeof assetUseSchema>;

export const getAssetUsesReplySchema = z.object({ data: z.object({ used_in: z.array(assetUseSchema) }) });
export type GetAssetUsesReply = z.infer<typeof getAssetUsesReplySchema>;
