import { z } from 'zod';
import { currencyCodeSchema } from '../common/assets.js';

/** Request/reply subjects of custom assets (assets whose price their owner sets); every request acts for `meta.userId`. */
export const CustomAssetSubjects = {
  create: 'screener.custom-assets.create',
  update: 'screener.custom-assets.update',
  list: 'screener.custom-assets.list',
  delete: 'screener.custom-assets.delete',
} as const;

/** Postgres text cannot hold NUL; without this check such a value is a 500 instead of a 422. */
const noNul = (field: string) => [(s: string) => !s.includes('\u0000'), `The ${field} may not contain NUL characters.`] as const;
const name = z
  .string({ error: 'The name must be a string.' })
  .trim()
  .min(1, 'The name is required.')
  .max(120, 'The name may not be greater than 120 characters.')
  .refine(...noNul('name'));
const ticker = z
  .string({ error: 'The ticker must be a string.' })
  .trim()
  .min(1, 'The ticker may not be empty.')
  .max(20, 'The ticker may not be greater than 20 characters.')
  .regex(/^[\p{L}\p{N}._-]+$/u, 'The ticker may contain letters, digits, ".", "_" and "-" only.');
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
/**
 * A price as the owner sets it: a positive number (a decimal string is accepted, as HTML forms send them). Not a
 * blanket coercion, which would turn `true`, `[5]` or `"0x10"` into prices.
 */
const price = z.preprocess(
  (v) => (typeof v === 'string' && DECIMAL.test(v.trim()) ? Number(v.trim()) : v),
  z
    .number({ error: 'The price must be a number.' })
    .refine((v) => Number.isFinite(v), 'The price must be a number.')
    .positive('The price must be greater than 0.')
    // Bounded on both sides so the day change (new ÷ old price) always stays a finite number.
    .min(1e-8, 'The price must be at least 0.00000001.')
    .max(1e15, 'The price is too large.'),
);
const description = z
  .string({ error: 'The description must be a string.' })
  .trim()
  .max(1000, 'The description may not be greater than 1000 characters.')
  .refine(...noNul('description'));
const currency = z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), currencyCodeSchema);

/** `screener.custom-assets.create` (HTTP `POST /api/custom-assets`). The ticker defaults to the name. */
export const createCustomAssetRequestSchema = z.object({
  name,
  ticker: ticker.optional(),
  currency,
  price,
  description: description.nullish(),
});
export type CreateCustomAssetRequest = z.infer<typeof createCustomAssetRequestSchema>;

const updateFields = z.object({
  name: name.optional(),
  ticker: ticker.optional(),
  currency: currency.optional(),
  price: price.optional(),
  description: description.nullish(),
});
const someField = (r: z.infer<typeof updateFields>) =>
  r.name !== undefined || r.ticker !== undefined || r.currency !== undefined || r.price !== undefined || r.description !== undefined;
const someFieldError = { message: 'Give at least one of name, ticker, currency, price, description.', path: ['_'] };

/** Body of HTTP `PATCH /api/custom-assets/{id}`: any of the fields; a new price emits RatesUpdated. */
export const updateCustomAssetBodySchema = updateFields.refine(someField, someFieldError);

/** `screener.custom-assets.update`: the body plus the asset id (from the path). */
export const updateCustomAssetRequestSchema = updateFields
  .extend({ id: z.coerce.number({ error: 'The id must be an integer.' }).int('The id must be an integer.').positive('The id must be positive.') })
  .refine(someField, someFieldError);
export type UpdateCustomAssetRequest = z.infer<typeof updateCustomAssetRequestSchema>;

/** `screener.custom-assets.delete` (HTTP `DELETE /api/custom-assets/{id}`): the asset id (from the path). */
export const deleteCustomAssetRequestSchema = z.object({
  id: z.coerce.number({ error: 'The id must be an integer.' }).int('The id must be an integer.').positive('The id must be positive.'),
});
export type DeleteCustomAssetRequest = z.infer<typeof deleteCustomAssetRequestSchema>;

/** Reply of `screener.custom-assets.delete`. */
export interface DeleteCustomAssetReply {
  data: { id: number; deleted: true };
}

/** `screener.custom-assets.list`: the user's custom assets (no parameters). */
export const listCustomAssetsRequestSchema = z.object({});

export const customAssetSchema = z.object({
  id: z.number().int(),
  type: z.literal('custom_asset'),
  ticker: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  currency: z.string(),
  current_rate: z.number().nullable(),
  /** Change against the last price of the previous market day (null on the first day). */
  price_change_percentage_24h: z.number().nullable(),
  rate_updated_at: z.string().nullable(),
  created_at: z.string(),
});
export type CustomAsset = z.infer<typeof customAssetSchema>;

export interface CustomAssetReply {
  data: CustomAsset;
}
export interface ListCustomAssetsReply {
  data: CustomAsset[];
}
