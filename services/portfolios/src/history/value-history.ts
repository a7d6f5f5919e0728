import type { AssetRef } from '@invest/contracts';
import { Decimal } from '@invest/platform';
import { compareDeals } from '../deals/deal-order.js';
import { runningHoldings } from '../deals/holding-timeline.js';
import { applyDeal } from '../statistics/aggregate-deals.js';
import { type AssetAggregate, assetKey, type DealInput } from '../statistics/statistics.types.js';

/** An asset's close of one market day. */
export interface DailyClose {
  date: string;
  close: Decimal;
}

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
export const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

interface Running {
  agg: AssetAggregate;
  lastClose?: Decimal;
}

function newRunning(asset: AssetRef): Running {
  const zero = Decimal.ZERO;
  return { agg: { asset, quantity: zero, costBasis: zero, fixed: zero, accruals: zero, expenses: zero, commissions: zero, taxes: zero, invested: zero, dealsCount: 0 } };
}

/**
 * The portfolio's value and invested amount at the end of every day from its first deal to `to` (inclusive; a
 * later deal is left out). Deals are applied in the statistics' order with the same weighted-average rule
 * (`applyDeal`, `runningHoldings`), so the last day's invested equals the holdings' total. A day without a close
 * (a weekend, a holiday, a day the asset did not trade) carries the asset's last earlier close over; an open position
 * without any close yet counts at cost, as the holdings' total counts an unpriced position.
 *
 * One pass over the days: the totals change by a deal's or a close's difference only, so the work is deals + closes
 * + days, not days × deals. `closes` are by `assetKey`, each list in date order.
 */
export function valueHistory(deals: readonly DealInput[], closes: ReadonlyMap<string, readonly DailyClose[]>, to: string): ValueHistory {
  const ordered = deals.filter((d) => d.date <= to).sort(compareDeals);
  if (ordered.length === 0) return { points: [], positions: [] };
  const byAsset = new Map<string, DealInput[]>();
  for (const d of ordered) {
    const key = assetKey(d.asset);
    const list = byAsset.get(key);
    if (list) list.push(d);
    else byAsset.set(key, [d]);
  }
  const heldAfter = new Map<DealInput, Decimal>();
  for (const list of byAsset.values()) runningHoldings(list).forEach((held, i) => heldAfter.set(list[i]!, held));

  const running = new Map<string, Running>();
  for (const [key, list] of byAsset) running.set(key, newRunning({ type: list[0]!.asset.type, id: list[0]!.asset.id }));
  // A cursor into each asset's closes (in date order): each day takes the last close on or before it, so closes before
  // the first deal count on its day and a day without one keeps the previous. Comparing dates beats bucketing by day.
  const cursors = [...running].map(([key, r]) => ({ r, list: closes.get(key) ?? [], next: 0 }));
  const first = ordered[0]!.date;

  // Open positions with a close add quantity × close to `atCloses`; those without one add their cost to `atCost`.
  // Two sums, so the frequent close updates stay at the closes' scale instead of the cost basis' 20 places.
  let atCloses = Decimal.ZERO;
  let atCost = Decimal.ZERO;
  let invested = Decimal.ZERO;
  const points: HistoryPoint[] = [];
  let di = 0;
  for (let day = first; day <= to; day = addDays(day, 1)) {
    for (const cursor of cursors) {
      const { list, r } = cursor;
      if (cursor.next >= list.length || list[cursor.next]!.date > day) continue;
      let close = list[cursor.next++]!.close;
      while (cursor.next < list.length && list[cursor.next]!.date <= day) close = list[cursor.next++]!.close;
      const q = r.agg.quantity;
      if (q.sign() > 0) {
        if (r.lastClose) atCloses = atCloses.plus(q.times(close.minus(r.lastClose)));
        else {
          atCost = atCost.minus(r.agg.costBasis);
          atCloses = atCloses.plus(q.times(close));
        }
      }
      r.lastClose = close;
    }
    for (; di < ordered.length && ordered[di]!.date === day; di++) {
      const d = ordered[di]!;
      const r = running.get(assetKey(d.asset))!;
      const open = r.agg.quantity.sign() > 0;
      if (open) {
        invested = invested.minus(r.agg.costBasis);
        if (r.lastClose) atCloses = atCloses.minus(r.agg.quantity.times(r.lastClose));
        else atCost = atCost.minus(r.agg.costBasis);
      }
      applyDeal(r.agg, d, heldAfter.get(d));
      if (r.agg.quantity.sign() > 0) {
        invested = invested.plus(r.agg.costBasis);
        if (r.lastClose) atCloses = atCloses.plus(r.agg.quantity.times(r.lastClose));
        else atCost = atCost.plus(r.agg.costBasis);
      }
    }
    points.push({ date: day, value: atCloses.plus(atCost), invested });
  }
  const positions = [...running.values()]
    .filter((r) => r.agg.quantity.sign() > 0)
    .map((r) => ({ asset: r.agg.asset, quantity: r.agg.quantity, costBasis: r.agg.costBasis, ...(r.lastClose ? { lastClose: r.lastClose } : {}) }));
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
