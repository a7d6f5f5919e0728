/**
 * Demo daily closes: the demo capture is one day's prices, so a fresh demo database has no close a week back and
 * the 7-day change stays empty for a week. The demo seeds the closes of the days before the load instead, a small
 * deterministic walk that ends at each share's current price. **Demo data, not market history.**
 */

/** Days of closes the demo keeps before the load's market day: the 7-day base (7 to 13 days back) always has one. */
export const DEMO_CLOSE_DAYS = 14;

/** Largest move from one demo close to the next (2 %). */
const MAX_DAILY_MOVE = 0.02;

export interface DemoCloseShare {
  assetId: number;
  ticker: string;
  /** The share's current price: the walk starts next to it. */
  rate: number;
}

export interface DemoClose {
  assetId: number;
  /** `YYYY-MM-DD`. */
  tradeDate: string;
  close: number;
}

/** The calendar date `days` before `date` (both `YYYY-MM-DD`). */
export function daysBefore(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - days)).toISOString().slice(0, 10);
}

/** A stable number in [-1, 1) from a ticker and a day: the same demo gives the same closes on every load. */
function wobble(ticker: string, day: number): number {
  let h = 2166136261;
  for (const ch of `${ticker}:${day}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return ((h >>> 0) % 20001) / 10000 - 1;
}

/**
 * The closes of the `days` calendar days before `today` for each share with a positive price: walking back from
 * the price, each day's close differs from the next day's by at most 2 %, rounded to 6 significant digits.
 */
export function demoCloses(shares: readonly DemoCloseShare[], today: string, days = DEMO_CLOSE_DAYS): DemoClose[] {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(today)) throw new Error(`today must be YYYY-MM-DD, got ${today}`);
  const out: DemoClose[] = [];
  for (const share of shares) {
    if (!(Number.isFinite(share.rate) && share.rate > 0)) continue;
    let close = share.rate;
    for (let back = 1; back <= days; back++) {
      close *= 1 + MAX_DAILY_MOVE * wobble(share.ticker, back);
      out.push({ assetId: share.assetId, tradeDate: daysBefore(today, back), close: Number(close.toPrecision(6)) });
    }
  }
  return out;
}
