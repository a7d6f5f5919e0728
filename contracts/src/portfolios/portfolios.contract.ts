import { z } from 'zod';
import { CURRENCY_CODES, currencyCodeSchema } from '../common/assets.js';
import { decimalOutputSchema } from '../common/decimal.js';
import { isoTimestampSchema, resourceIdSchema, storableText } from './common.js';

const upperTrimmed = (v: unknown) => (typeof v === 'string' ? v.trim().toUpperCase() : v);

/** A portfolio's name: 1-100 characters after trimming. */
export const portfolioNameSchema = storableText(
  z
    .string({ error: 'The name field must be a string.' })
    .trim()
    .min(1, 'The name field is required.')
    .max(100, 'The name field must not be greater than 100 characters.'),
  'name',
);

/** ISO 4217 code of a portfolio, any case in, upper case out (`rub` -> `RUB`). */
export const portfolioCurrencySchema = z.preprocess(upperTrimmed, currencyCodeSchema);
export { CURRENCY_CODES };

/** A portfolio as the service returns it. */
export const portfolioSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  currency_code: z.string(),
  /** Assets currently held (non-zero quantity). */
  positions_count: z.number().int(),
  deals_count: z.number().int(),
  created_at: isoTimestampSchema,
  updated_at: isoTimestampSchema,
});
export type Portfolio = z.infer<typeof portfolioSchema>;

/**
 * A portfolio in the list, with its value and gain defined as in the holdings totals (PORTFOLIO_FIGURES), in the
 * portfolio's currency.
 */
export const portfolioListItemSchema = portfolioSchema.extend({
  value: decimalOutputSchema,
  invested: decimalOutputSchema,
  gain: decimalOutputSchema,
  /** 100 x gain / invested; null when nothing is invested. */
  gain_percentage: z.number().nullable(),
});
export type PortfolioListItem = z.infer<typeof portfolioListItemSchema>;

/** `portfolios.portfolios.list` (no payload): the user's portfolios, oldest first. */
export const listPortfoliosRequestSchema = z.object({}).strip();
export const listPortfoliosReplySchema = z.object({ data: z.array(portfolioListItemSchema) });
export interface ListPortfoliosReply {
  data: PortfolioListItem[];
}

/** `portfolios.portfolios.create` (body of `POST /api/portfolios`). */
export const createPortfolioRequestSchema = z.object({
  name: portfolioNameSchema,
  currency_code: portfolioCurrencySchema,
});
export type CreatePortfolioRequest = z.infer<typeof createPortfolioRequestSchema>;

/** `portfolios.portfolios.get` and `portfolios.portfolios.delete`. */
export const portfolioIdRequestSchema = z.object({ id: resourceIdSchema });
export type PortfolioIdRequest = z.infer<typeof portfolioIdRequestSchema>;

/** Body of `PATCH /api/portfolios/{id}`: any of name, currency_code. */
export const updatePortfolioBodySchema = z
  .object({
    name: portfolioNameSchema.optional(),
    currency_code: portfolioCurrencySchema.optional(),
  })
  // About the whole body, so it has no field path (the gateway reports it under `body`).
  .refine((b) => b.name !== undefined || b.currency_code !== undefined, { message: 'The request body must give at least one of: name, currency_code.' });

/** `portfolios.portfolios.update`: the id and the body's fields. */
export const updatePortfolioRequestSchema = z.object({
  id: resourceIdSchema,
  name: portfolioNameSchema.optional(),
  currency_code: portfolioCurrencySchema.optional(),
});
export type UpdatePortfolioRequest = z.infer<typeof updatePortfolioRequestSchema>;

/** Reply of create, get and update. */
export interface PortfolioReply {
  data: Portfolio;
}

/** Reply of `portfolios.portfolios.delete` (and every delete of this service). */
export interface DeletedReply {
  data: { id: number; deleted: true };
}
