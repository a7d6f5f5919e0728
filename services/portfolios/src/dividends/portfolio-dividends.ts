import type { AssetRef, GetDividendsReply, PortfolioDividends } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { aggregateDeals } from '../statistics/aggregate-deals.js';
import { money } from '../statistics/position-figures.js';
import { assetKey, type DealInput } from '../statistics/statistics.types.js';

/** The open positions of the deals (exact quantity > 0), as the holdings count them. */
export function openPositions(deals: readonly DealInput[]): { asset: AssetRef; quantity: Decimal }[] {
  return aggregateDeals(deals)
    .assets.filter((a) => a.quantity.sign() > 0)
    .map((a) => ({ asset: a.asset, quantity: a.quantity }));
}

/**
 * DIVIDENDS of a portfolio: each upcoming dividend of an open position with the amount due on the current quantity
 * (per share x quantity, in the dividend's currency), and the income received per year: Σ quantity x price of the
 * year's dividend and coupon deals (by deal date), the holdings' `dividends` (accruals) split by year.
 */
export function portfolioDividends(input: {
  deals: readonly DealInput[];
  upcoming: GetDividendsReply['data'];
  describe: (ref: AssetRef) => { ticker: string; title: string } | undefined;
}): PortfolioDividends {
  const held = new Map(openPositions(input.deals).map((p) => [assetKey(p.asset), p]));
  const expected: PortfolioDividends['expected'] = [];
  for (const d of input.upcoming) {
    const position = held.get(assetKey({ type: d.type as AssetRef['type'], id: d.id }));
    if (!position) continue;
    const perShare = Decimal.of(d.value);
    const known = input.describe(position.asset);
    expected.push({
      assetable: position.asset,
      ticker: known?.ticker ?? '',
      title: known?.title ?? '',
      record_date: d.record_date,
      payment_date: null,
      per_share: money(perShare),
      currency: d.currency,
      quantity: money(position.quantity),
      amount: money(perShare.times(position.quantity)),
    });
  }
  expected.sort((a, b) => (a.record_date < b.record_date ? -1 : a.record_date > b.record_date ? 1 : a.ticker.localeCompare(b.ticker)));

  const byYear = new Map<number, Decimal>();
  for (const deal of input.deals) {
    if (deal.type !== 'dividend' && deal.type !== 'coupon') continue;
    const year = Number(deal.date.slice(0, 4));
    byYear.set(year, (byYear.get(year) ?? Decimal.ZERO).plus(deal.quantity.times(deal.price)));
  }
  const received_by_year = [...byYear.entries()].sort(([a], [b]) => a - b).map(([year, amount]) => ({ year, amount: money(amount) }));
  return { expected, received_by_year };
}
