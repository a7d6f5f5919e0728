import { z } from 'zod';
import { decimalOutputSchema } from '../common/decimal.js';
import { resourceIdSchema } from './common.js';

/** How far back the value history reaches: a month, half a year, a year, or since the first deal. */
export const HISTORY_RANGES = ['1M', '6M', '1Y', 'ALL'] as const;
export const historyRangeSchema = z.enum(HISTORY_RANGES, { error: 'The range must be one of 1M, 6M, 1Y, ALL.' });
export type HistoryRange = z.infer<typeof historyRangeSchema>;

/** The query string of `GET /api/portfolios/{id}/history` (default ALL; an empty value means not given, as on the screener). */
export const historyQuerySchema = z.object({ range: z.preprocess((v) => (v === '' ? undefined : v), historyRangeSchema.default('ALL')) });

/**
 * `portfolios.history.get` (and `GET /api/portfolios/{id}/history?range=`): one of the user's portfolios, day by
 * day since its first deal (docs/portfolio-statistics.md, "Value over time").
 */
export const getHistoryRequestSchema = z.object({ portfolio_id: resourceIdSchema, range: historyRangeSchema.default('ALL') });
export type GetHistoryRequest = z.infer<typeof getHistoryRequestSchema>;

export const historyPointSchema = z.object({
  date: z.string(),
  /** Σ quantity × the day's close (the last earlier close over days without one; an asset without any close at cost). The last day at current prices. */
  value: decimalOutputSchema,
  /** Cost of the open positions that day: the holdings' "invested" (quantity × average price). */
  invested: decimalOutputSchema,
});
export type HistoryPoint = z.infer<typeof historyPointSchema>;

export const getHistoryReplySchema = z.object({
  data: z.object({ currency: z.string(), points: z.array(historyPointSchema) }),
  meta: z.object({
    portfolio_id: z.number().int(),
    range: historyRangeSchema,
    /** `cache` when the days before today came from the history cache, `computed` when from the deals and closes. */
    source: z.enum(['cache', 'computed']),
    /** Days between two points: 1, more only when ALL spans more than MAX_HISTORY_POINTS days (the last day always kept). */
    step_days: z.number().int(),
    /** False while the screener is still fetching the history of some asset: those days count it at cost. */
    complete: z.boolean(),
    stats_version: z.number().int(),
  }),
});
export type GetHistoryReply = z.infer<typeof getHistoryReplySchema>;

/** Most points in one answer (about 11 years of days): an older first deal thins ALL to every n-th day. */
export const MAX_HISTORY_POINTS = 4000;
