import { Decimal } from '@invest/platform/decimal/decimal';
import type { AssetAggregate, AssetQuote } from './statistics.types.js';

/**
 * How one position is valued against its quote: the rules the statistics and the holdings share, so each figure
 * has one definition (docs/portfolio-statistics.md).
 */
export interface PositionFigures {
  open: boolean;
  /** Latest rate; null when unknown (or no finite number). */
  price: number | null;
  /** quantity x price; 0 when closed; null when open and unpriced. */
  networth: Decimal | null;
  /** networth - cost basis (unrealised result); null when unpriced. */
  income: Decimal | null;
  /** networth, or the cost basis when unpriced: what weights and totals count. */
  value: Decimal;
  /** The asset's 24 h change, percent. */
  change24: number | null;
  /** networth - networth / (1 + p/100); null without a networth or a usable p. */
  dayChange: Decimal | null;
}

export const HUNDRED = Decimal.of(100);

const round = (x: number, dp: number): number => {
  const r = Math.round(x * 10 ** dp) / 10 ** dp;
  return Object.is(r, -0) ? 0 : r;
};
export { round };
/** Money and quantities: exact, answered as decimal text rounded to 8 places (half away from zero). */
export const money = (x: Decimal): string => x.round(8).toString();
/** Percentages and weights: doubles, 4 decimal places. */
export const pct = (x: number) => round(x, 4);
/** 100 x part / whole as a double (whole ≠ 0). */
export const percent = (part: Decimal, whole: Decimal): number => part.times(HUNDRED).div(whole).toNumber();

export function positionFigures(agg: AssetAggregate, quote: AssetQuote | undefined): PositionFigures {
  // A rate that is no finite number (none should reach the price table) counts as unknown, not as an error.
  const price = quote?.currentRate !== undefined && quote.currentRate !== null && Number.isFinite(quote.currentRate) ? quote.currentRate : null;
  const open = agg.quantity.sign() > 0;
  const networth = !open ? Decimal.ZERO : price === null ? null : agg.quantity.times(Decimal.of(price));
  const income = networth === null ? null : networth.minus(agg.costBasis);
  const value = networth ?? agg.costBasis;
  const change24 = quote?.priceChangePercentage24h ?? null;
  // Value 24 h ago of a priced position = networth / (1 + p/100).
  const dayChange =
    networth && change24 !== null && Number.isFinite(change24) && change24 > -100
      ? networth.minus(networth.times(HUNDRED).div(HUNDRED.plus(Decimal.of(change24))))
      : null;
  return { open, price, networth, income, value, change24, dayChange };
}

/** 100 x change / (value - change): the day change in percent of the value 24 h ago; null when that is not positive. */
export function dayChangePercentage(value: Decimal, change: Decimal): number | null {
  const before = value.minus(change);
  return before.sign() > 0 ? pct(percent(change, before)) : null;
}
