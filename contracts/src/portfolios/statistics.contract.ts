import { z } from 'zod';
import { assetRefSchema, assetTypeSchema } from '../common/assets.js';
import { decimalOutputSchema } from '../common/decimal.js';
import { resourceIdSchema } from './common.js';

/**
 * `portfolios.statistics.get` (and `GET /api/portfolios/{id}/statistics`): statistics of one portfolio of
 * the requesting user (`meta.userId`). Formulas: docs/portfolio-statistics.md.
 */
export const getStatisticsRequestSchema = z.object({ portfolio_id: resourceIdSchema });
export type GetStatisticsRequest = z.infer<typeof getStatisticsRequestSchema>;

/**
 * One asset that has deals in the portfolio (open or closed). Money is in the portfolio's currency; money and
 * quantities are exact decimals (decimalOutputSchema), rounded to 8 decimal places.
 */
export const tickerStatisticsSchema = z.object({
  ticker: z.string(),
  title: z.string(),
  type: assetTypeSchema,
  /** Sign of the asset's quote currency (₽, $, ...), or the code when it has no sign. */
  symbol: z.string().nullable(),
  assetable: assetRefSchema,
  currency: z.string().nullable(),
  totalQuantity: decimalOutputSchema,
  currentPrice: z.number().nullable(),
  currentNetworth: decimalOutputSchema.nullable(),
  currentIncome: decimalOutputSchema.nullable(),
  spent: decimalOutputSchema,
  fixed: decimalOutputSchema,
  accruals: decimalOutputSchema,
  expenses: decimalOutputSchema,
  commissions: decimalOutputSchema,
  taxes: decimalOutputSchema,
  averageWeightedPrice: decimalOutputSchema,
  price_change_percentage_24h: z.number().nullable(),
  /** fixed + currentIncome + accruals - expenses - commissions - taxes (currentIncome 0 when unpriced). */
  totalIncome: decimalOutputSchema,
  /** Share of the portfolio's current value, percent. */
  weight: z.number(),
  dealsCount: z.number().int(),
});
export type TickerStatistics = z.infer<typeof tickerStatisticsSchema>;

export const XIRR_ERROR_CODES = ['no_flows', 'same_sign', 'single_date', 'no_root'] as const;
export const xirrErrorSchema = z.object({ code: z.enum(XIRR_ERROR_CODES), message: z.string() });
export type XirrError = z.infer<typeof xirrErrorSchema>;

export const statisticsTotalsSchema = z.object({
  currency: z.string(),
  totalSpent: decimalOutputSchema,
  totalCurrentNetworth: decimalOutputSchema,
  totalCurrentIncome: decimalOutputSchema,
  totalFixed: decimalOutputSchema,
  totalAccruals: decimalOutputSchema,
  totalExpenses: decimalOutputSchema,
  totalCommissions: decimalOutputSchema,
  totalTaxes: decimalOutputSchema,
  totalIncome: decimalOutputSchema,
  /** totalIncome / totalInvested x 100; null when nothing was ever bought. */
  totalIncomePercentage: z.number().nullable(),
  /** Gross money put into buys over the portfolio's life (quantity x price, without commissions). */
  totalInvested: decimalOutputSchema,
  /** Change of the current value over 24 hours from the assets' price_change_percentage_24h. */
  change24h: decimalOutputSchema,
  changePercentage24h: z.number().nullable(),
  /** Annualised money-weighted return as a fraction (0.12 = 12 %/year), actual/365 like spreadsheet XIRR. */
  xirr: z.number().nullable(),
  xirrError: xirrErrorSchema.nullable(),
  positionsCount: z.number().int(),
  closedPositionsCount: z.number().int(),
  dealsCount: z.number().int(),
  /** Tickers held without a known current price: valued at cost (spent) in the totals. */
  unpricedTickers: z.array(z.string()),
  /** The date the terminal XIRR flow is placed on: today (UTC), or the last deal's date when that is later. */
  valuationDate: z.string(),
});
export type StatisticsTotals = z.infer<typeof statisticsTotalsSchema>;

export const assetClassShareSchema = z.object({
  type: assetTypeSchema,
  value: decimalOutputSchema,
  weight: z.number(),
  positionsCount: z.number().int(),
});
export const topPositionSchema = z.object({
  ticker: z.string(),
  title: z.string(),
  type: assetTypeSchema,
  value: decimalOutputSchema,
  weight: z.number(),
});

export const healthMetricsSchema = z.object({
  /** 0-100; 100 x (0.7 x (1 - HHI of positions) + 0.3 x (1 - HHI of asset classes)); null without value. */
  diversificationScore: z.number().nullable(),
  /** 0-100; 100 x HHI of positions (100 = everything in one asset); null without value. */
  concentrationScore: z.number().nullable(),
  herfindahlIndex: z.number().nullable(),
  /** 1 / HHI: how many equal positions would give the same concentration. */
  effectivePositions: z.number().nullable(),
  largestPositionWeight: z.number().nullable(),
  assetClasses: z.array(assetClassShareSchema),
  topPositions: z.array(topPositionSchema),
});
export type HealthMetrics = z.infer<typeof healthMetricsSchema>;

export const portfolioStatisticsSchema = z.object({
  tickers: z.array(tickerStatisticsSchema),
  totals: statisticsTotalsSchema,
  health: healthMetricsSchema,
});
export type PortfolioStatistics = z.infer<typeof portfolioStatisticsSchema>;

/** Where an answer came from: the 50-second hydrated cache, the 7-day state cache, or the deals themselves. */
export const STATISTICS_SOURCES = ['hydrated', 'state', 'computed'] as const;
export type StatisticsSource = (typeof STATISTICS_SOURCES)[number];

export const statisticsMetaSchema = z.object({
  source: z.enum(STATISTICS_SOURCES),
  portfolio_id: z.number().int(),
  /** When the answer (state + prices) was put together. */
  computed_at: z.string(),
  /** When the price-independent state it is built on was aggregated from the deals. */
  state_computed_at: z.string(),
  /** The portfolio's statistics version: bumped by every deal change (and a currency change). */
  stats_version: z.number().int(),
});
export type StatisticsMeta = z.infer<typeof statisticsMetaSchema>;

export const getStatisticsReplySchema = z.object({ data: portfolioStatisticsSchema, meta: statisticsMetaSchema });
export type GetStatisticsReply = z.infer<typeof getStatisticsReplySchema>;
