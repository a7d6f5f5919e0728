import { z } from 'zod';
import { assetRefSchema, assetTypeSchema } from '../common/assets.js';
import { type Page, pageQuerySchema } from '../common/paging.js';
import { decimalOutputSchema, decimalSchema } from '../common/decimal.js';
import { isoTimestampSchema, resourceIdSchema } from './common.js';

/** Kinds of deal. buy/sell change the holding; the others are cash events tied to an asset. */
export const DEAL_TYPES = ['buy', 'sell', 'dividend', 'coupon', 'fee', 'tax'] as const;
export const dealTypeSchema = z.enum(DEAL_TYPES, { error: `The type must be one of: ${DEAL_TYPES.join(', ')}.` });
export type DealType = z.infer<typeof dealTypeSchema>;

/** A calendar date `YYYY-MM-DD` that exists (2024-02-30 does not). Whether it is in the future is the service's check. */
export const dealDateSchema = z
  .string({ error: 'The date must be a date in the format YYYY-MM-DD.' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'The date must be a date in the format YYYY-MM-DD.')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'The date is not a valid date.')
  .refine((s) => s >= '1900-01-01', 'The date must be on or after 1900-01-01.');

/**
 * Body of `POST /api/portfolios/{id}/deals`. Amount of a deal = quantity x price (for a dividend: units
 * held x payout per unit; for a fee or a tax: e.g. 1 x amount). Prices are in the portfolio's currency.
 * Quantity, price and commission are exact decimals (see decimalSchema: at most 8 decimal places, at most 1e15).
 */
export const createDealBodySchema = z.object({
  type: dealTypeSchema,
  assetable: assetRefSchema,
  quantity: decimalSchema('quantity', 'positive'),
  price: decimalSchema('price', 'nonnegative'),
  commission: decimalSchema('commission', 'nonnegative').default('0'),
  date: dealDateSchema,
});
export type CreateDealBody = z.infer<typeof createDealBodySchema>;

/** `portfolios.deals.create`. */
export const createDealRequestSchema = createDealBodySchema.extend({ portfolio_id: resourceIdSchema });
export type CreateDealRequest = z.infer<typeof createDealRequestSchema>;

/** `portfolios.deals.list`: a page of the portfolio's deals, newest date first. */
export const listDealsRequestSchema = pageQuerySchema.extend({ portfolio_id: resourceIdSchema });
export type ListDealsRequest = z.infer<typeof listDealsRequestSchema>;

/** `portfolios.deals.delete`. */
export const deleteDealRequestSchema = z.object({ portfolio_id: resourceIdSchema, deal_id: resourceIdSchema });
export type DeleteDealRequest = z.infer<typeof deleteDealRequestSchema>;

/** The asset a deal or watchlist item refers to, as the portfolios service knows it. */
export const assetSummarySchema = z.object({
  type: assetTypeSchema,
  id: z.number().int(),
  ticker: z.string(),
  name: z.string().nullable(),
  currency: z.string().nullable(),
  current_rate: z.number().nullable(),
  price_change_percentage_24h: z.number().nullable(),
});
export type AssetSummary = z.infer<typeof assetSummarySchema>;

export const dealSchema = z.object({
  id: z.number().int(),
  portfolio_id: z.number().int(),
  type: dealTypeSchema,
  assetable: assetRefSchema,
  asset: assetSummarySchema.nullable(),
  quantity: decimalOutputSchema,
  price: decimalOutputSchema,
  commission: decimalOutputSchema,
  /** quantity x price, exact, rounded to 8 decimal places (half away from zero). */
  amount: decimalOutputSchema,
  date: z.string(),
  created_at: isoTimestampSchema,
});
export type Deal = z.infer<typeof dealSchema>;

export type ListDealsReply = Page<Deal>;
export interface DealReply {
  data: Deal;
}
