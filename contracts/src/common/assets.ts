import { z } from 'zod';

/** Asset types of the spec, as they appear on the wire (snake_case). */
export const ASSET_TYPES = ['token', 'share', 'bond', 'etf', 'future', 'currency', 'custom_asset'] as const;
export const assetTypeSchema = z.enum(ASSET_TYPES, { error: `The type must be one of: ${ASSET_TYPES.join(', ')}.` });
export type AssetType = z.infer<typeof assetTypeSchema>;

/** A reference to one asset (`assetable`): its type and the screener's asset id. */
export const assetRefSchema = z.object({
  type: assetTypeSchema,
  // A JSON number or a string of digits (`"123"`); anything else (true, [1], "0x1", "") is not an id, where
  // plain coercion would turn it into one (true -> 1).
  id: z.preprocess(
    (v) => (typeof v === 'string' && /^\s*\d{1,16}\s*$/.test(v) ? Number(v) : v),
    z.number({ error: 'The id must be an integer.' }).int('The id must be an integer.').positive('The id must be positive.'),
  ),
});
export type AssetRef = z.infer<typeof assetRefSchema>;

/** ISO 4217 currency codes the tracker supports for portfolios and prices. */
export const CURRENCY_CODES = ['RUB', 'USD', 'EUR', 'CNY', 'GBP', 'CHF', 'JPY', 'HKD', 'KZT', 'TRY', 'AED', 'USDT'] as const;
export const currencyCodeSchema = z.enum(CURRENCY_CODES, { error: `The currency code must be one of: ${CURRENCY_CODES.join(', ')}.` });
