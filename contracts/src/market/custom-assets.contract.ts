import { z } from 'zod';
import { currencyCodeSchema } from '../common/assets.js';
import { decimalOutputSchema, decimalSchema } from '../common/decimal.js';

/** Request/reply subjects of custom assets (assets whose price their owner sets); every request acts for `meta.userId`. */
export const CustomAssetSubjects = {
  create: 'screener.custom-assets.create',
  update: 'screener.custom-assets.update',
  list: 'screener.custom-assets.list',
  delete: 'screener.custom-assets.delete',
} as const;

/**
 * Postgres text cannot hold NUL (a 500 instead of a 422 without this check), and stores a lone UTF-16 surrogate
 * as U+FFFD (the text would silently change).
 */
const noNul = (field: string) =>
  [(s: string) => !s.includes('\u0000') && !/\p{Cs}/u.test(s), `The ${field} field must not contain NUL characters or unpaired surrogates.`] as const;
const name = z
  .string({ error: 'The name field must be a string.' })
  .trim()
  .min(1, 'The name field is required.')
  .max(120, 'The name field must not be greater than 120 characters.')
  .refine(...noNul('name'));
const ticker = z
  .string({ error: 'The ticker field must be a string.' })
  .trim()
  .min(1, 'The ticker field must not be empty.')
  .max(20, 'The ticker field must not be greater than 20 characters.')
  .regex(/^[\p{L}\p{N}._-]+$/u, 'The ticker may contain letters, digits, ".", "_" and "-" only.');
/**
 * A price as the owner sets it: the money rule of deals (decimalSchema: a JSON number or a decimal string, at most
 * 8 decimal places, at most 1e15), and greater than 0, so the day change (new / old price) stays a finite number.
 */
const price = decimalSchema('price', 'positive');
const description = z
  .string({ error: 'The description field must be a string.' })
  .trim()
  .max(1000, 'The description field must not be greater than 1000 characters.')
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
// About the whole body, so it has no field path (the gateway reports it under `body`).
const someFieldError = { message: 'The request body must give at least one of: name, ticker, currency, price, description.' };

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
  /** The price the owner set, exactly (decimal text on NATS, a JSON number with these digits over HTTP). */
  current_rate: decimalOutputSchema.nullable(),
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
