import type { AssetRef } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { compareDeals } from '../deals/deal-order.js';
import { runningHoldings } from '../deals/holding-timeline.js';
import { applyDeal } from '../statistics/aggregate-deals.js';
import { type AssetAggregate, assetKey, type DealInput } from '../statistics/statistics.types.js';

/** An asset's close of one market day. */
export interface DailyClose {
  date: string;
  close: Decimal;
}

/**
 * An asset's closes in date order, in flat arrays: each market day as a day number (`dayNumber`), and its close as
 * `units` × 10^-`scales` (a count past 2^53 as its digits), as the screener's reply packs them. A close becomes a
 * Decimal only when a held position is valued at it (`closeAt`): a Decimal for each of a portfolio's ~260,000 closes,
 * made as the reply was read, lived through the whole computation and the collector's copying of them took more
 * time than the computation itself.
 */
export interface AssetCloses {
  days: ArrayLike<number>;
  units: ArrayLike<number | string>;
  scales: ArrayLike<number>;
}

/** The i-th close of an asset. */
export const closeAt = (closes: AssetCloses, i: number): Decimal => Decimal.raw(BigInt(closes.units[i]!), closes.scales[i]!);

/** One day of the series: what the positions were worth and what they cost. */
export interface HistoryPoint {
  date: string;
  /** Σ quantity × the asset's last close on or before the day; an open position without any close yet counts at cost. */
  value: Decimal;
  /** Σ cost of the open positions (the holdings' "invested": quantity × average price, no commissions). */
  invested: Decimal;
}

/** A position at the end of the series, so the last day can be revalued at live prices without replaying the deals. */
export interface EndPosition {
  asset: AssetRef;
  quantity: Decimal;
  costBasis: Decimal;
  /** The last close on or before the last day, if any. */
  lastClose?: Decimal;
}

export interface ValueHistory {
  points: HistoryPoint[];
  positions: EndPosition[];
}

const DAY_MS = 86_400_000;
/** Days since 1970-01-01 of a `YYYY-MM-DD` date. */
export const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
export const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

function newAggregate(asset: AssetRef): AssetAggregate {
  const zero = Decimal.ZERO;
  return { asset, quantity: zero, costBasis: zero, fixed: zero, accruals: zero, expenses: zero, commissions: zero, taxes: zero, invested: zero, dealsCount: 0 };
}

/**
 * The portfolio's value and invested amount at the end of every day from its first deal to `to` (inclusive; a
 * later deal is left out). Deals are applied in the statistics' order with the same weighted-average rule
 * (`applyDeal`, `runningHoldings`), so the last day's invested equals the holdings' total. A day without a close
 * (a weekend, a holiday, a day the asset did not trade) carries the asset's last earlier close over; an open position
 * without any close yet counts at cost, as the holdings' total counts an unpriced position.
 *
 * Asset by asset: walking its deals and closes in date order, each change of what the asset is worth or cost is
 * added to its day's change; the series is the running sum of the days' changes. So the work is deals + closes +
 * days, not days × deals, and each asset's closes are read in one sequential pass (walking all assets day by day
 * jumped between 200 lists and took about 1.5 times as long). `closes` are by `assetKey`; a close's day is found
 * by subtracting day numbers (looking its date text up in a map of days took an eighth of the time).
 */
export function valueHistory(deals: readonly DealInput[], closes: ReadonlyMap<string, AssetCloses>, to: string): ValueHistory {
  const ordered = deals.filter((d) => d.date <= to).sort(compareDeals);
  if (ordered.length === 0) return { points: [], positions: [] };
  const byAsset = new Map<string, DealInput[]>();
  for (const d of ordered) {
    const key = assetKey(d.asset);
    const list = byAsset.get(key);
    if (list) list.push(d);
    else byAsset.set(key, [d]);
  }
  const first = dayNumber(ordered[0]!.date);
  const dates: string[] = [];
  const dayIndex = new Map<string, number>();
  for (let day = ordered[0]!.date; day <= to; day = addDays(day, 1)) dayIndex.set(day, dates.push(day) - 1);
  // A close before the first deal is the price the first day starts from.
  const indexOf = (day: number) => (day < first ? 0 : day - first);
  const valueChange = new Array<Decimal>(dates.length).fill(Decimal.ZERO);
  const investedChange = new Array<Decimal>(dates.length).fill(Decimal.ZERO);

  const positions: EndPosition[] = [];
  for (const [key, list] of byAsset) {
    const held = runningHoldings(list);
    const agg = newAggregate({ type: list[0]!.asset.type, id: list[0]!.asset.id });
    const prices = closes.get(key) ?? { days: [], units: [], scales: [] };
    const { days } = prices;
    let next = 0;
    // The index of the last close read (-1 while there is none).
    let last = -1;
    // What the asset adds to the value now: quantity × last close, its cost while it has no close, nothing when closed.
    let worth = Decimal.ZERO;
    const revalue = (day: number) => {
      const now = agg.quantity.sign() > 0 ? (last >= 0 ? agg.quantity.times(closeAt(prices, last)) : agg.costBasis) : Decimal.ZERO;
      if (now === worth) return;
      valueChange[day] = valueChange[day]!.plus(now.minus(worth));
      worth = now;
    };
    const closesThrough = (day: number) => {
      for (; next < days.length && days[next]! <= day; next++) {
        last = next;
        if (agg.quantity.sign() > 0) revalue(indexOf(days[next]!));
      }
    };
    list.forEach((d, i) => {
      // The day's closes before its deals, as a day ends with both.
      const day = dayIndex.get(d.date)!;
      closesThrough(first + day);
      const costBefore = agg.quantity.sign() > 0 ? agg.costBasis : Decimal.ZERO;
      applyDeal(agg, d, held[i]);
      const costAfter = agg.quantity.sign() > 0 ? agg.costBasis : Decimal.ZERO;
      investedChange[day] = investedChange[day]!.plus(costAfter.minus(costBefore));
      revalue(day);
    });
    closesThrough(dayNumber(to));
    if (agg.quantity.sign() > 0) positions.push({ asset: agg.asset, quantity: agg.quantity, costBasis: agg.costBasis, ...(last >= 0 ? { lastClose: closeAt(prices, last) } : {}) });
  }

  let value = Decimal.ZERO;
  let invested = Decimal.ZERO;
  const points = dates.map((date, day) => {
    value = value.plus(valueChange[day]!);
    invested = invested.plus(investedChange[day]!);
    return { date, value, invested };
  });
  return { points, positions };
}

/**
 * The last point revalued at live prices (the local price table, as the holdings value it), by `assetKey`: the
 * current day's close is the current rate until the market day rolls over. A position without a live price keeps
 * its last close, else its cost.
 */
export function withLivePrices(history: ValueHistory, live: ReadonlyMap<string, Decimal>): HistoryPoint[] {
  const last = history.points.at(-1);
  if (!last) return history.points;
  let value = Decimal.ZERO;
  for (const p of history.positions) {
    const price = live.get(assetKey(p.asset)) ?? p.lastClose;
    value = value.plus(price ? p.quantity.times(price) : p.costBasis);
  }
  return [...history.points.slice(0, -1), { ...last, value }];
}

/** The first day a range shows, ending on `to`: the same day a month, six months or a year earlier; ALL: everything. */
export function rangeStart(range: '1M' | '6M' | '1Y' | 'ALL', to: string): string | undefined {
  if (range === 'ALL') return undefined;
  const months = range === '1M' ? 1 : range === '6M' ? 6 : 12;
  const d = new Date(`${to}T00:00:00Z`);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() - months);
  // 31 March less a month is the last day of February, not 2 or 3 March.
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d.toISOString().slice(0, 10);
}

/** Every `step`-th point counted back from the last (which is always kept), so that at most `max` remain. */
export function thinPoints<T>(points: readonly T[], max: number): { points: T[]; step: number } {
  if (points.length <= max) return { points: [...points], step: 1 };
  const step = Math.ceil(points.length / max);
  const kept: T[] = [];
  for (let i = points.length - 1; i >= 0; i -= step) kept.push(points[i]!);
  return { points: kept.reverse(), step };
}
