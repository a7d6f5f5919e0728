import { Decimal } from '@invest/platform/decimal/decimal';
import type { DailyClose, HistoryPoint } from '../history/value-history.js';
import { addDays } from '../history/value-history.js';
import { aggregateDeals } from '../statistics/aggregate-deals.js';
import { assetKey, type DealInput } from '../statistics/statistics.types.js';

/**
 * The value history recomputed the obvious way, as an oracle for tests and the bench's baseline: for every day,
 * the deals up to it aggregated from scratch and each open position valued at its last close found by a scan.
 * Days × deals work; the answer must equal `valueHistory`'s.
 */
export function naiveValueHistory(deals: readonly DealInput[], closes: ReadonlyMap<string, readonly DailyClose[]>, to: string): HistoryPoint[] {
  const dated = deals.filter((d) => d.date <= to);
  if (dated.length === 0) return [];
  const first = dated.reduce((min, d) => (d.date < min ? d.date : min), dated[0]!.date);
  const points: HistoryPoint[] = [];
  for (let day = first; day <= to; day = addDays(day, 1)) {
    const state = aggregateDeals(dated.filter((d) => d.date <= day));
    let value = Decimal.ZERO;
    let invested = Decimal.ZERO;
    for (const a of state.assets) {
      if (a.quantity.sign() <= 0) continue;
      let close: Decimal | undefined;
      for (const c of closes.get(assetKey(a.asset)) ?? []) if (c.date <= day) close = c.close;
      value = value.plus(close ? a.quantity.times(close) : a.costBasis);
      invested = invested.plus(a.costBasis);
    }
    points.push({ date: day, value, invested });
  }
  return points;
}
