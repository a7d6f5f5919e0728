import { z } from 'zod';
import { assetRefSchema } from '../common/assets.js';

/**
 * `screener.dividends.get`: the dividends of some assets whose record date is the market's today (MARKET_TZ) or
 * later, ordered by record date then asset id. The source (MOEX ISS) gives no payment date.
 */
export const getDividendsRequestSchema = z.object({ refs: z.array(assetRefSchema).min(1).max(500) });
export type GetDividendsRequest = z.infer<typeof getDividendsRequestSchema>;

export const MAX_DIVIDENDS_PER_REPLY = 5_000;

export const getDividendsReplySchema = z.object({
  data: z.array(
    z.object({
      type: z.string(),
      id: z.number().int(),
      /** `YYYY-MM-DD`: the register's closing date (who holds the share then gets the dividend). */
      record_date: z.string(),
      /** Per share, exact decimal text. */
      value: z.string(),
      currency: z.string(),
    }),
  ),
});
export type GetDividendsReply = z.infer<typeof getDividendsReplySchema>;
