import { z } from 'zod';
import { ASSET_TYPES, assetTypeSchema } from '../common/assets.js';
import { queryIntegerSchema } from '../common/paging.js';

/** Longest accepted `search` term of the asset search. */
export const ASSET_SEARCH_MAX_LENGTH = 100;
/** Most assets one search answers (`limit`); a picker shows a handful, a longer list means "type more". */
export const ASSET_SEARCH_MAX_LIMIT = 50;

/** Query strings carry empty values (`?type=`) as ""; they mean "not given". */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/**
 * `screener.assets.search` (HTTP `GET /api/assets`): assets of every type by ticker, name or ISIN, best match
 * first (exact ticker, ticker prefix, name words, then any other match). `type` narrows to one asset type.
 * Custom assets are searched only for `meta.userId`, among their own. Accepts its own output, so the gateway
 * forwards the parsed query and the service parses it again.
 */
export const searchAssetsQuerySchema = z.object({
  search: z.preprocess(
    (v) => blankToUndefined(typeof v === 'string' ? v.trim() : v),
    z
      .string({ error: 'The search field must be a string.' })
      .max(ASSET_SEARCH_MAX_LENGTH, `The search field must not be greater than ${ASSET_SEARCH_MAX_LENGTH} characters.`)
      // eslint-disable-next-line no-control-regex -- control characters (NUL in particular) are what it rejects
      .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'The search field must not contain control characters.')
      .optional(),
  ),
  type: z.preprocess(
    (v) => blankToUndefined(typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.enum(ASSET_TYPES, { error: `The selected type is invalid. Allowed: ${ASSET_TYPES.join(', ')}.` }).optional(),
  ),
  limit: queryIntegerSchema('limit', { min: 1, max: ASSET_SEARCH_MAX_LIMIT, default: 20 }),
});
export type SearchAssetsQuery = z.output<typeof searchAssetsQuerySchema>;
export type SearchAssetsQueryInput = z.input<typeof searchAssetsQuerySchema>;

/** One found asset: what a picker shows (ticker, name, type) and what a deal or an alert refers to (`type`, `id`). */
export const assetSearchRowSchema = z.object({
  id: z.number().int(),
  type: assetTypeSchema,
  ticker: z.string(),
  name: z.string(),
  isin: z.string().nullable(),
  currency: z.string(),
  current_rate: z.number().nullable(),
  price_change_percentage_24h: z.number().nullable(),
  rate_updated_at: z.string().nullable(),
});
export type AssetSearchRow = z.infer<typeof assetSearchRowSchema>;

/** Reply: at most `limit` assets, best match first. */
export interface SearchAssetsReply {
  data: AssetSearchRow[];
}
