import type { AssetRef, AssetType } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';

export type { DealInput } from '../deals/deal.types.js';

/** One dated cash flow from the investor's point of view: money paid in is negative, money received positive. */
export interface CashFlow {
  date: string;
  amount: Decimal;
}

/** Price-independent totals of one asset's deals. */
export interface AssetAggregate {
  asset: AssetRef;
  /** Units held now (buys - sells). */
  quantity: Decimal;
  /** Cost of the units held now, at the weighted average purchase price (no commissions). */
  costBasis: Decimal;
  /** Realised result of sells: sum of quantity x (sell price - average price at the sale). */
  fixed: Decimal;
  /** Dividends and coupons received: sum of quantity x price. */
  accruals: Decimal;
  /** Fees: sum of quantity x price. */
  expenses: Decimal;
  /** Commissions of every deal of the asset. */
  commissions: Decimal;
  /** Taxes: sum of quantity x price. */
  taxes: Decimal;
  /** Gross purchases: sum of buy quantity x price. */
  invested: Decimal;
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
/**
 * 2: holdings summed exactly (a leftover of any size is held), as the deal service does. 3: every amount is an
 * exact decimal, stored as its text. States of an older format are recomputed.
 */
export const STATE_FORMAT_VERSION = 3;

const MONEY_FIELDS = ['quantity', 'costBasis', 'fixed', 'accruals', 'expenses', 'commissions', 'taxes', 'invested'] as const;

/**
 * A state as read back from its JSON (decimals are written as their text by Decimal#toJSON); undefined when it
 * is of another format version.
 */
export function reviveState(json: unknown): PortfolioState | undefined {
  const raw = json as { formatVersion?: unknown; assets: Record<string, unknown>[]; cashFlows: { date: string; amount: string }[]; dealsCount: number } | null;
  if (raw?.formatVersion !== STATE_FORMAT_VERSION) return undefined;
  return {
    formatVersion: STATE_FORMAT_VERSION,
    dealsCount: raw.dealsCount,
    cashFlows: raw.cashFlows.map((f) => ({ date: f.date, amount: Decimal.of(f.amount) })),
    assets: raw.assets.map((a) => {
      const agg = { ...a } as Record<string, unknown>;
      for (const f of MONEY_FIELDS) agg[f] = Decimal.of(a[f] as string);
      return agg as unknown as AssetAggregate;
    }),
  };
}

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
