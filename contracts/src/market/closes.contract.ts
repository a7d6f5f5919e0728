import { z } from 'zod';
import { assetRefSchema } from '../common/assets.js';

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'The date must be a date in the format YYYY-MM-DD.');

/**
 * `screener.closes.get`: the daily closes of some assets from `from` to `to` (market days, MARKET_TZ), plus each
 * asset's last close before `from` (so a caller can carry it into the range). Paged by `after`: at most
 * MAX_CLOSES_PER_REPLY closes a reply (NATS' 1 MB payload), ordered by asset id then date; `next_after` continues.
 */
export const getClosesRequestSchema = z.object({
  refs: z.array(assetRefSchema).min(1).max(500),
  from: isoDate,
  to: isoDate,
  /** Continue after this asset id and date (the previous reply's `next_after`). */
  after: z.object({ asset_id: z.number().int(), date: isoDate }).optional(),
});
export type GetClosesRequest = z.infer<typeof getClosesRequestSchema>;

export const MAX_CLOSES_PER_REPLY = 20_000;

export const getClosesReplySchema = z.object({
  data: z.array(
    z.object({
      type: z.string(),
      id: z.number().int(),
      /** Market days in date order, and the close of each (exact decimal text): two flat arrays read far faster than pairs. */
      dates: z.array(z.string()),
      closes: z.array(z.string()),
    }),
  ),
  next_after: z.object({ asset_id: z.number().int(), date: z.string() }).nullable(),
  /** Assets asked for that had no close at all: their history is being fetched (MOEX ISS); ask again later. */
  backfilling: z.array(assetRefSchema),
});
export type GetClosesReply = z.infer<typeof getClosesReplySchema>;
