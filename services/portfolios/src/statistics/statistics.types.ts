import type { AssetRef, AssetType } from '@invest/contracts';

export type { DealInput } from '../deals/deal.types.js';

/** One dated cash flow from the investor's point of view: money paid in is negative, money received positive. */
export interface CashFlow {
  date: string;
  amount: number;
}

/** Price-independent totals of one asset's deals. */
export interface AssetAggregate {
  asset: AssetRef;
  /** Units held now (buys - sells). */
  quantity: number;
  /** Cost of the units held now, at the weighted average purchase price (no commissions). */
  costBasis: number;
  /** Realised result of sells: sum of quantity x (sell price - average price at the sale). */
  fixed: number;
  /** Dividends and coupons received: sum of quantity x price. */
  accruals: number;
  /** Fees: sum of quantity x price. */
  expenses: number;
  /** Commissions of every deal of the asset. */
  commissions: number;
  /** Taxes: sum of quantity x price. */
  taxes: number;
  /** Gross purchases: sum of buy quantity x price. */
  invested: number;
  dealsCount: number;
}

/**
 * The STATE: everything about a portfolio that does not depend on prices. Cached for 7 days,
 * invalidated by any deal change. `formatVersion` lets a new release ignore states it cannot read.
 */
export interface PortfolioState {
  formatVersion: typeof STATE_FORMAT_VERSION;
  assets: AssetAggregate[];
  /** Cash flows summed per date, sorted by date. */
  cashFlows: CashFlow[];
  dealsCount: number;
}
/** 2: holdings summed exactly (a leftover of any size is held), as the deal service does; states of 1 are recomputed. */
export const STATE_FORMAT_VERSION = 2;

/** What hydration needs to know about an asset: the local catalog row with its latest price. */
export interface AssetQuote {
  type: AssetType;
  id: number;
  ticker: string;
  name: string | null;
  currency: string | null;
  currentRate: number | null;
  priceChangePercentage24h: number | null;
}

export const assetKey = (a: AssetRef): string => `${a.type}:${a.id}`;
