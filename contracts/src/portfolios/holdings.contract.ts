import { z } from 'zod';
import { assetRefSchema, assetTypeSchema } from '../common/assets.js';
import { decimalOutputSchema } from '../common/decimal.js';
import { resourceIdSchema } from './common.js';

/**
 * `portfolios.holdings.get` (and `GET /api/portfolios/{id}/holdings`): one row per position of a portfolio of the
 * requesting user, with totals. Each figure has one definition (PORTFOLIO_FIGURES, docs/portfolio-statistics.md
 * "Holdings") and the same number as the statistics field it is named after. Money and quantities are exact
 * decimals rounded to 8 places; percentages and weights are doubles rounded to 4 places.
 */
export const getHoldingsRequestSchema = z.object({ portfolio_id: resourceIdSchema });
export type GetHoldingsRequest = z.infer<typeof getHoldingsRequestSchema>;

export const holdingRowSchema = z.object({
  ticker: z.string(),
  title: z.string(),
  type: assetTypeSchema,
  assetable: assetRefSchema,
  /** The asset's quote currency (null when unknown). */
  currency: z.string().nullable(),
  /** False for a closed position: everything bought was sold (quantity exactly 0). */
  open: z.boolean(),
  quantity: decimalOutputSchema,
  average_price: decimalOutputSchema,
  current_price: z.number().nullable(),
  /** Null when open and unpriced (the totals count it at cost); 0 when closed. */
  value: decimalOutputSchema.nullable(),
  invested: decimalOutputSchema,
  /** Null when open and unpriced. */
  gain: decimalOutputSchema.nullable(),
  gain_percentage: z.number().nullable(),
  day_change: decimalOutputSchema.nullable(),
  day_change_percentage: z.number().nullable(),
  weight: z.number(),
  dividends: decimalOutputSchema,
  realised: decimalOutputSchema,
  deals_count: z.number().int(),
});
export type HoldingRow = z.infer<typeof holdingRowSchema>;

export const holdingsTotalsSchema = z.object({
  currency: z.string(),
  value: decimalOutputSchema,
  invested: decimalOutputSchema,
  gain: decimalOutputSchema,
  /** 100 x gain / invested; null when nothing is invested. */
  gain_percentage: z.number().nullable(),
  day_change: decimalOutputSchema,
  day_change_percentage: z.number().nullable(),
  dividends: decimalOutputSchema,
  realised: decimalOutputSchema,
  costs: decimalOutputSchema,
  result: decimalOutputSchema,
  positions_count: z.number().int(),
  closed_positions_count: z.number().int(),
  /** Tickers held without a known current price: valued at cost in `value`. */
  unpriced_tickers: z.array(z.string()),
});
export type HoldingsTotals = z.infer<typeof holdingsTotalsSchema>;

export const holdingsSchema = z.object({ rows: z.array(holdingRowSchema), totals: holdingsTotalsSchema });
export type Holdings = z.infer<typeof holdingsSchema>;

export const getHoldingsReplySchema = z.object({
  data: holdingsSchema,
  meta: z.object({
    portfolio_id: z.number().int(),
    /** The portfolio's statistics version the rows were computed at (bumped by every deal change). */
    stats_version: z.number().int(),
  }),
});
export type GetHoldingsReply = z.infer<typeof getHoldingsReplySchema>;
