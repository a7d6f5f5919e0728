import { z } from 'zod';
import { assetRefSchema } from '../common/assets.js';
import { isoTimestampSchema, resourceIdSchema, storableText } from './common.js';
import { assetSummarySchema } from './deals.contract.js';

export const watchlistItemSchema = z.object({
  id: z.number().int(),
  watchlist_id: z.number().int(),
  assetable: assetRefSchema,
  asset: assetSummarySchema.nullable(),
  created_at: isoTimestampSchema,
});
export type WatchlistItem = z.infer<typeof watchlistItemSchema>;

export const watchlistSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  items: z.array(watchlistItemSchema),
  created_at: isoTimestampSchema,
});
export type Watchlist = z.infer<typeof watchlistSchema>;

/** `GET /api/watchlists`: the user's watchlists with their items, all of them. */
export interface ListWatchlistsReply {
  data: Watchlist[];
}

/**
 * `portfolios.watchlists.list`: the user's watchlists after the one `after` (by id; from the first without it),
 * whole, as many as fit one NATS message. At the limits a user's watchlists reach megabytes, beyond the
 * server's `max_payload` (1 MB by default): the gateway asks page by page, each next one `after: next_after`.
 */
export const listWatchlistsRequestSchema = z.object({ after: resourceIdSchema.optional() });
export type ListWatchlistsRequest = z.infer<typeof listWatchlistsRequestSchema>;

export interface ListWatchlistsPageReply {
  data: Watchlist[];
  /** The last watchlist of this page when more follow; null on the last page. */
  next_after: number | null;
}

/** Body of `POST /api/watchlists` and `portfolios.watchlists.create`. */
export const createWatchlistRequestSchema = z.object({
  name: storableText(
    z
      .string({ error: 'The name field must be a string.' })
      .trim()
      .min(1, 'The name field is required.')
      .max(100, 'The name field must not be greater than 100 characters.'),
    'name',
  ),
});
export type CreateWatchlistRequest = z.infer<typeof createWatchlistRequestSchema>;

/** `portfolios.watchlists.delete`. */
export const watchlistIdRequestSchema = z.object({ id: resourceIdSchema });

/** Body of `POST /api/watchlists/{id}/items`. */
export const addWatchlistItemBodySchema = z.object({ assetable: assetRefSchema });

/** `portfolios.watchlist-items.create`. */
export const addWatchlistItemRequestSchema = addWatchlistItemBodySchema.extend({ watchlist_id: resourceIdSchema });
export type AddWatchlistItemRequest = z.infer<typeof addWatchlistItemRequestSchema>;

/** `portfolios.watchlist-items.delete`. */
export const removeWatchlistItemRequestSchema = z.object({ watchlist_id: resourceIdSchema, item_id: resourceIdSchema });

export interface WatchlistReply {
  data: Watchlist;
}
export interface WatchlistItemReply {
  data: WatchlistItem;
}
