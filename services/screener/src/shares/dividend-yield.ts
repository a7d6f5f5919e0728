import { addMonths } from '../market-data/market-time.js';

/** Months ahead whose dividends count towards the yield. */
export const DIVIDEND_YIELD_WINDOW_MONTHS = 12;

export interface DividendRecord {
  /** Record (registry close) date, `YYYY-MM-DD`. */
  recordDate: string;
  /** Amount per share. */
  value: number;
  currency: string;
}

export interface DividendYieldInput {
  /** Current price per share; null or non-positive means "no price". */
  price: number | null;
  /** Currency of the price. */
  currency: string;
  /** Known dividends of the share, or null when its dividends are unknown (never fetched). */
  dividends: readonly DividendRecord[] | null;
  /** Today in MARKET_TZ, `YYYY-MM-DD`. */
  today: string;
}

/** Window of record dates that count: from today (inclusive) to today + 12 months (exclusive). */
export function dividendWindow(today: string): { from: string; until: string } {
  return { from: today, until: addMonths(today, DIVIDEND_YIELD_WINDOW_MONTHS) };
}

/**
 * Dividend yield in percent: the dividends whose record date falls within the next 12 months (today
 * inclusive, the same day a year ahead exclusive, so an annual payment counts once), divided by the
 * current price × 100. Only dividends in the price's currency count: converting would need FX rates the
 * screener does not keep, and a dividend in another currency is not comparable to the price as is.
 * Null when there is no price, or when the share's dividends are unknown; 0 when they are known and none
 * falls in the window. The list SQL (`list-shares.query.ts`) implements the same rule.
 */
export function dividendYield(input: DividendYieldInput): number | null {
  if (input.price === null || !(input.price > 0) || input.dividends === null) return null;
  const { from, until } = dividendWindow(input.today);
  let sum = 0;
  for (const d of input.dividends) {
    if (d.currency === input.currency && d.recordDate >= from && d.recordDate < until) sum += d.value;
  }
  return (sum / input.price) * 100;
}
