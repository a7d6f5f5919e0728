import { z } from 'zod';
import { assetTypeSchema } from '../common/assets.js';

/** Market asset types that have a public page: custom assets belong to one user and have none. */
export const PUBLIC_ASSET_TYPES = ['share', 'bond', 'etf', 'future', 'currency', 'token'] as const;

/**
 * `screener.assets.page` (HTTP `GET /api/public/assets/{type}/{ticker}`): one market asset by type and ticker, its
 * key figures and its dividends. An unknown asset (or a custom one) is a NotFound.
 */
export const getAssetPageRequestSchema = z.object({
  type: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.enum(PUBLIC_ASSET_TYPES, { error: `The type must be one of: ${PUBLIC_ASSET_TYPES.join(', ')}.` }),
  ),
  ticker: z
    .string({ error: 'The ticker must be a string.' })
    .trim()
    .min(1, 'The ticker field is required.')
    .max(64, 'The ticker must not be greater than 64 characters.'),
});
export type GetAssetPageRequest = z.infer<typeof getAssetPageRequestSchema>;

export const assetDividendSchema = z.object({
  /** The record date (дата закрытия реестра), `YYYY-MM-DD`. */
  record_date: z.string(),
  /**
   * The ex-dividend date: under MOEX T+1 settlement the weekday before the record date (holidays are not known here,
   * so it is an estimate). A share bought on this day or later does not get the dividend.
   */
  ex_date: z.string(),
  /** Per share, exact decimal text. */
  value: z.string(),
  currency: z.string(),
  /** `true` when the record date is today or later (announced or expected, not yet paid). */
  upcoming: z.boolean(),
});
export type AssetDividend = z.infer<typeof assetDividendSchema>;

/** Share-only key figures (null for other types). */
export const assetShareFiguresSchema = z.object({
  /** Percent of the current price paid over the next 12 months; null when unknown. */
  dividend_yield: z.number().nullable(),
  /** Capitalisation of this issue, RUB. */
  market_cap: z.number().nullable(),
  /** Today's turnover in the share's currency. */
  trading_volume: z.number().nullable(),
  lot_size: z.number().int().nullable(),
  category: z.object({ id: z.number().int(), slug: z.string(), name: z.string() }),
  country: z.object({ code: z.string(), name: z.string() }).nullable(),
});

export const assetPageSchema = z.object({
  id: z.number().int(),
  type: assetTypeSchema,
  ticker: z.string(),
  name: z.string(),
  short_name: z.string().nullable(),
  isin: z.string().nullable(),
  currency: z.string(),
  current_rate: z.number().nullable(),
  price_change_percentage_24h: z.number().nullable(),
  price_change_percentage_7d: z.number().nullable(),
  rate_updated_at: z.string().nullable(),
  share: assetShareFiguresSchema.nullable(),
  /** Every dividend the screener has, newest record date first (empty for types without dividends). */
  dividends: z.array(assetDividendSchema),
});
export type AssetPage = z.infer<typeof assetPageSchema>;

export interface GetAssetPageReply {
  data: AssetPage;
}

/** Chart ranges of the asset page and how many months back each reaches. */
export const ASSET_CLOSES_RANGES = { '1M': 1, '6M': 6, '1Y': 12 } as const;
export type AssetClosesRange = keyof typeof ASSET_CLOSES_RANGES;

/** `GET /api/public/assets/{type}/{ticker}/closes?range=`: 1M when not given. */
export const assetClosesQuerySchema = z.object({
  range: z.preprocess(
    (v) => (v === undefined || (typeof v === 'string' && v.trim() === '') ? '1M' : typeof v === 'string' ? v.trim().toUpperCase() : v),
    z.enum(Object.keys(ASSET_CLOSES_RANGES) as [AssetClosesRange, ...AssetClosesRange[]], {
      error: `The selected range is invalid. Allowed: ${Object.keys(ASSET_CLOSES_RANGES).join(', ')}.`,
    }),
  ),
});

export const assetClosesSchema = z.object({
  range: z.string(),
  from: z.string(),
  to: z.string(),
  /** Market days in date order and the close of each (exact decimal text); the first may be the last close before `from`. */
  dates: z.array(z.string()),
  closes: z.array(z.string()),
  /** The history is being fetched (MOEX ISS): ask again later. */
  backfilling: z.boolean(),
});
export type AssetCloses = z.infer<typeof assetClosesSchema>;
