import { z } from 'zod';
import { type Page, pageQuerySchema } from '../common/paging.js';

/** Columns the share screener can sort by (`?sort=`); `market_cap` is the default. */
export const SHARE_SORT_COLUMNS = [
  'price_change_percentage_24h',
  'price_change_percentage_7d',
  'dividend_yield',
  'market_cap',
  'trading_volume',
] as const;
export type ShareSortColumn = (typeof SHARE_SORT_COLUMNS)[number];

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** Longest accepted `search` term. */
export const SHARE_SEARCH_MAX_LENGTH = 100;

/** Query strings carry empty values (`?category=`) as ""; they mean "not given". */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : v);
const lowerTrimmed = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v);

const CATEGORY_MESSAGE = 'The category must be a category id or slug.';

/**
 * A category given as its id (`5`, `"5"`) or its slug (`"preferred"`). Digits become a number, a slug is
 * lower-cased. Accepts its own output, so a gateway can forward the parsed query and the service parses it again.
 */
export const shareCategoryFilterSchema = z.preprocess(
  (v) => blankToUndefined(typeof v === 'number' ? String(v) : lowerTrimmed(v)),
  z
    .string({ error: CATEGORY_MESSAGE })
    .max(64, CATEGORY_MESSAGE)
    .regex(/^([1-9]\d{0,9}|[a-z][a-z0-9_-]*)$/, CATEGORY_MESSAGE)
    .transform((s) => (/^\d+$/.test(s) ? Number(s) : s))
    .refine((v) => typeof v === 'string' || v <= 2_147_483_647, CATEGORY_MESSAGE)
    .optional(),
);

/** ISO 3166-1 alpha-2 code, any case in, upper case out. */
export const countryCodeSchema = z
  .string({ error: 'The country code must be a two-letter ISO 3166-1 alpha-2 code.' })
  .regex(/^[A-Za-z]{2}$/, 'The country code must be a two-letter ISO 3166-1 alpha-2 code.')
  .transform((s) => s.toUpperCase());

/** Largest accepted bound of the dividend yield filter, in percent. */
export const DIVIDEND_YIELD_FILTER_MAX = 1000;
/** Largest accepted bound of the market cap filter, in roubles (a thousand trillion: far above any issue). */
export const MARKET_CAP_FILTER_MAX = 1e15;

/**
 * A non-negative decimal bound from a query string (`5`, `2.5`; `,` read as the decimal separator, as Russian
 * readers write it). Exponents, signs, hex and spaces inside are refused, as for whole numbers. An empty value means
 * "not given". A number passes as it is, so the service parses the gateway's output again.
 */
function queryDecimalSchema(name: string, max: number) {
  const field = `The ${name.replace(/_/g, ' ')} field`;
  const notDecimal = `${field} must be a number written with the digits 0-9 and at most one decimal point.`;
  return z.preprocess(
    (v) => {
      const s = blankToUndefined(trimmed(v));
      if (typeof s !== 'string') return s;
      const dot = s.replace(',', '.');
      return /^\d{1,20}(\.\d{1,10})?$/.test(dot) ? Number(dot) : s;
    },
    z
      .number({ error: notDecimal })
      .refine((n) => Number.isFinite(n), notDecimal)
      .min(0, `${field} must be at least 0.`)
      .max(max, `${field} must not be greater than ${max}.`)
      .optional(),
  );
}

/** A `min`/`max` pair whose minimum is above its maximum, named under the maximum. */
const rangeCheck = (name: string) => (q: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const min = q[`${name}_min`];
  const max = q[`${name}_max`];
  if (typeof min === 'number' && typeof max === 'number' && min > max) {
    ctx.addIssue({
      code: 'custom',
      path: [`${name}_max`],
      message: `The ${name.replace(/_/g, ' ')} max field must be greater than or equal to ${name.replace(/_/g, ' ')} min.`,
    });
  }
};

/**
 * Query of `screener.shares.list` (and of `GET /api/public/shares`, `GET /api/shares`): paging, sorting
 * (nulls last in both directions) and filters. The gateway validates with this same schema.
 */
export const listSharesQuerySchema = pageQuerySchema.extend({
  sort: z.preprocess(
    (v) => blankToUndefined(lowerTrimmed(v)),
    z.enum(SHARE_SORT_COLUMNS, { error: `The selected sort is invalid. Allowed: ${SHARE_SORT_COLUMNS.join(', ')}.` }).default('market_cap'),
  ),
  direction: z.preprocess(
    (v) => blankToUndefined(lowerTrimmed(v)),
    z.enum(SORT_DIRECTIONS, { error: 'The selected direction is invalid. Allowed: asc, desc.' }).default('desc'),
  ),
  category: shareCategoryFilterSchema,
  country_code: z.preprocess((v) => blankToUndefined(trimmed(v)), countryCodeSchema.optional()),
  /** Matches ticker, name (Cyrillic), Latin name or ISIN; case-insensitive substring. */
  search: z.preprocess(
    (v) => blankToUndefined(trimmed(v)),
    z
      .string({ error: 'The search field must be a string.' })
      .max(SHARE_SEARCH_MAX_LENGTH, `The search field must not be greater than ${SHARE_SEARCH_MAX_LENGTH} characters.`)
      // eslint-disable-next-line no-control-regex -- control characters (NUL in particular) are what it rejects
      .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'The search field must not contain control characters.')
      .optional(),
  ),
  /** Dividend yield range in percent, bounds included; a share whose yield is unknown is left out. */
  dividend_yield_min: queryDecimalSchema('dividend_yield_min', DIVIDEND_YIELD_FILTER_MAX),
  dividend_yield_max: queryDecimalSchema('dividend_yield_max', DIVIDEND_YIELD_FILTER_MAX),
  /** Market cap range in roubles, bounds included; a share without a market cap is left out. */
  market_cap_min: queryDecimalSchema('market_cap_min', MARKET_CAP_FILTER_MAX),
  market_cap_max: queryDecimalSchema('market_cap_max', MARKET_CAP_FILTER_MAX),
}).superRefine((q, ctx) => {
  rangeCheck('dividend_yield')(q, ctx);
  rangeCheck('market_cap')(q, ctx);
});
/** The parsed query (defaults applied, country code upper-cased, category id as a number). */
export type ListSharesQuery = z.output<typeof listSharesQuerySchema>;
/** What a caller may send. */
export type ListSharesQueryInput = z.input<typeof listSharesQuerySchema>;

export const shareCategoryRefSchema = z.object({ id: z.number().int(), slug: z.string(), name: z.string() });
export const countryRefSchema = z.object({ code: z.string().length(2), name: z.string() });

/** One screener row. Numbers are JSON numbers; `null` where the value is unknown. */
export const shareRowSchema = z.object({
  /** Asset id: what portfolios and alerts refer to. */
  id: z.number().int(),
  /** Ticker (MOEX SECID). */
  asset: z.string(),
  isin: z.string().nullable(),
  name: z.string(),
  current_rate: z.number().nullable(),
  /** Percent, e.g. 0.27 means +0.27 %. */
  price_change_percentage_24h: z.number().nullable(),
  price_change_percentage_7d: z.number().nullable(),
  /** Percent of the current price paid over the next 12 months; null when unknown or there is no price. */
  dividend_yield: z.number().nullable(),
  /** Capitalisation of this issue, RUB. */
  market_cap: z.number().nullable(),
  /** Today's turnover in the share's currency. */
  trading_volume: z.number().nullable(),
  category: shareCategoryRefSchema,
  country: countryRefSchema.nullable(),
  currency: z.string(),
  /** When the market data of the row was taken (ISO 8601, UTC). */
  updated_at: z.string(),
});
export type ShareRow = z.infer<typeof shareRowSchema>;
export type ListSharesReply = Page<ShareRow>;
