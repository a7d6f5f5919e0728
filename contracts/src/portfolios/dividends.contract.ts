import { z } from 'zod';
import { assetRefSchema } from '../common/assets.js';
import { resourceIdSchema } from './common.js';

/**
 * `portfolios.dividends.get` (and `GET /api/portfolios/{id}/dividends`): the expected dividends of the open
 * positions of one of the user's portfolios and the dividends received per year. Money and quantities are exact
 * decimal text (strings) rounded to 8 places.
 */
export const getPortfolioDividendsRequestSchema = z.object({ portfolio_id: resourceIdSchema });
export type GetPortfolioDividendsRequest = z.infer<typeof getPortfolioDividendsRequestSchema>;

export const expectedDividendSchema = z.object({
  assetable: assetRefSchema,
  ticker: z.string(),
  title: z.string(),
  /** `YYYY-MM-DD`: the register's closing date; to get the dividend a share must be held on it. */
  record_date: z.string(),
  /** Not known from the source (MOEX ISS): always null for now. */
  payment_date: z.string().nullable(),
  per_share: z.string(),
  currency: z.string(),
  /** The current open quantity. */
  quantity: z.string(),
  /** per_share x quantity, in `currency`. */
  amount: z.string(),
});
export type ExpectedDividend = z.infer<typeof expectedDividendSchema>;

export const dividendsPerYearSchema = z.object({
  year: z.number().int(),
  /** Σ amounts (quantity x payout) of the year's dividend and coupon deals: the holdings' `dividends`, per year. */
  amount: z.string(),
});

export const portfolioDividendsSchema = z.object({
  /** Record date today or later, soonest first. */
  expected: z.array(expectedDividendSchema),
  /** In the portfolio's currency, oldest year first; years without any are absent. */
  received_by_year: z.array(dividendsPerYearSchema),
});
export type PortfolioDividends = z.infer<typeof portfolioDividendsSchema>;

export const getPortfolioDividendsReplySchema = z.object({
  data: portfolioDividendsSchema,
  meta: z.object({ portfolio_id: z.number().int(), currency: z.string() }),
});
export type GetPortfolioDividendsReply = z.infer<typeof getPortfolioDividendsReplySchema>;
