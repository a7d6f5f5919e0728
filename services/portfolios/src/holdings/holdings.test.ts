import type { AssetRef, DealType } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { describe, expect, it } from 'vitest';
import { aggregateDeals } from '../statistics/aggregate-deals.js';
import { hydrateStatistics } from '../statistics/hydrate-statistics.js';
import type { AssetQuote, DealInput } from '../statistics/statistics.types.js';
import { computeHoldings } from './holdings.js';

const sber = { type: 'share' as const, id: 1 };
const gazp = { type: 'share' as const, id: 2 };
const ofz = { type: 'bond' as const, id: 3 };
const fxus = { type: 'etf' as const, id: 4 };
let nextId = 1;
type Num = number | string;
const deal = (type: DealType, asset: AssetRef, quantity: Num, price: Num, date: string, commission: Num = 0): DealInput => ({
  id: nextId++,
  type,
  asset,
  quantity: Decimal.of(quantity),
  price: Decimal.of(price),
  commission: Decimal.of(commission),
  date,
});
const quote = (asset: AssetRef, ticker: string, currentRate: number | null, change: number | null = null): [string, AssetQuote] => [
  `${asset.type}:${asset.id}`,
  { ...asset, ticker, name: `${ticker} name`, currency: 'RUB', currentRate, priceChangePercentage24h: change },
];

const deals = [
  // SBER: 20 bought at an average of 115, 5 sold at 150 (partial sale), a dividend on 15, a fee and a tax.
  deal('buy', sber, 10, 100, '2024-01-10', 1),
  deal('buy', sber, 10, 130, '2024-02-10', 1),
  deal('sell', sber, 5, 150, '2024-03-01', 1),
  deal('dividend', sber, 15, 2, '2024-04-01'),
  deal('fee', sber, 1, 10, '2024-05-01'),
  deal('tax', sber, 1, 4, '2024-05-02'),
  // GAZP: bought and sold entirely (closed), with a dividend received while held.
  deal('buy', gazp, 10, 200, '2024-01-15'),
  deal('dividend', gazp, 10, 5, '2024-02-01'),
  deal('sell', gazp, 10, 180, '2024-03-15'),
  // OFZ: held, price falls; FXUS: held without a price.
  deal('buy', ofz, 2, 1000, '2024-01-20'),
  deal('coupon', ofz, 2, 30, '2024-06-01'),
  deal('buy', fxus, 3, '33.33333333', '2024-01-25'),
];
const quotes = new Map([quote(sber, 'SBER', 130, 4), quote(gazp, 'GAZP', 170, 1), quote(ofz, 'OFZ', 950, -2), quote(fxus, 'FXUS', null)]);
const state = aggregateDeals(deals);
const h = computeHoldings({ state, quotes, currency: 'RUB' });
const row = (ticker: string) => h.rows.find((r) => r.ticker === ticker)!;

describe('computeHoldings', () => {
  it('values an open position after a partial sale at its average price, with its dividends and realised result', () => {
    // 15 held at 115 = 1725 invested; 15 x 130 = 1950; gain 225 = 13.0435 % of 1725; realised 5 x (150 - 115).
    expect(row('SBER')).toEqual({
      ticker: 'SBER',
      title: 'SBER name',
      type: 'share',
      assetable: sber,
      currency: 'RUB',
      open: true,
      quantity: '15',
      average_price: '115',
      current_price: 130,
      value: '1950',
      invested: '1725',
      gain: '225',
      gain_percentage: 13.0435,
      // 1950 - 1950 / 1.04 = 75
      day_change: '75',
      day_change_percentage: 4,
      weight: expect.any(Number),
      dividends: '30',
      realised: '175',
      deals_count: 6,
    });
  });

  it('keeps a closed position with nothing held: no value, no gain, its dividends and realised result', () => {
    expect(row('GAZP')).toMatchObject({
      open: false,
      quantity: '0',
      average_price: '0',
      value: '0',
      invested: '0',
      gain: '0',
      gain_percentage: null,
      day_change_percentage: null,
      weight: 0,
      dividends: '50',
      realised: '-200',
    });
  });

  it('values an unpriced position at cost in the totals and leaves its own value and gain unknown', () => {
    expect(row('FXUS')).toMatchObject({ open: true, current_price: null, value: null, gain: null, gain_percentage: null, invested: '99.99999999', day_change: null });
    expect(h.totals.unpriced_tickers).toEqual(['FXUS']);
  });

  it('sorts by value, largest first, and weights add up to 100', () => {
    expect(h.rows.map((r) => r.ticker)).toEqual(['SBER', 'OFZ', 'FXUS', 'GAZP']);
    expect(h.rows.reduce((s, r) => s + r.weight, 0)).toBeCloseTo(100, 2);
    // SBER 1950 of 1950 + 1900 + 99.99999999.
    expect(row('SBER').weight).toBeCloseTo((100 * 1950) / 3949.99999999, 4);
  });

  it('totals: value - invested = gain; result = gain + realised + dividends - costs', () => {
    expect(h.totals).toMatchObject({
      currency: 'RUB',
      value: '3949.99999999', // 1950 + 1900 + 99.99999999 at cost
      invested: '3824.99999999', // 1725 + 2000 + 99.99999999
      gain: '125', // 225 - 100 (FXUS unpriced counts 0)
      dividends: '140', // 30 + 50 + 60
      realised: '-25', // 175 - 200
      costs: '17', // fee 10 + tax 4 + 3 commissions
      result: '223', // 125 - 25 + 140 - 17
      positions_count: 3,
      closed_positions_count: 1,
    });
    expect(h.totals.gain_percentage).toBeCloseTo((100 * 125) / 3824.99999999, 4);
  });

  it('agrees with the statistics figure by figure', () => {
    const s = hydrateStatistics({ state, quotes, currency: 'RUB', today: '2024-07-01' });
    const t = s.totals;
    expect(h.totals).toMatchObject({
      value: t.totalCurrentNetworth,
      invested: t.totalSpent,
      gain: t.totalCurrentIncome,
      day_change: t.change24h,
      day_change_percentage: t.changePercentage24h,
      dividends: t.totalAccruals,
      realised: t.totalFixed,
      result: t.totalIncome,
      positions_count: t.positionsCount,
      closed_positions_count: t.closedPositionsCount,
      unpriced_tickers: t.unpricedTickers,
    });
    expect(Decimal.of(h.totals.costs).cmp(Decimal.of(t.totalExpenses).plus(Decimal.of(t.totalCommissions)).plus(Decimal.of(t.totalTaxes)))).toBe(0);
    for (const ticker of s.tickers) {
      expect(row(ticker.ticker)).toMatchObject({
        quantity: ticker.totalQuantity,
        average_price: ticker.averageWeightedPrice,
        current_price: ticker.currentPrice,
        value: ticker.currentNetworth,
        invested: ticker.spent,
        gain: ticker.currentIncome,
        weight: ticker.weight,
        dividends: ticker.accruals,
        realised: ticker.fixed,
        deals_count: ticker.dealsCount,
      });
    }
  });

  it('an empty portfolio has zero totals and no percentages', () => {
    const empty = computeHoldings({ state: aggregateDeals([]), quotes: new Map(), currency: 'USD' });
    expect(empty.rows).toEqual([]);
    expect(empty.totals).toMatchObject({ value: '0', invested: '0', gain: '0', gain_percentage: null, day_change_percentage: null, result: '0' });
  });
});
