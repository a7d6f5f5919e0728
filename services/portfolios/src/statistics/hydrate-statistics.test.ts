import { Decimal } from '@invest/platform/decimal/decimal';
import { describe, expect, it } from 'vitest';
import { hydrateStatistics } from './hydrate-statistics.js';
import { type AssetAggregate, type AssetQuote, type PortfolioState, STATE_FORMAT_VERSION } from './statistics.types.js';

type Money = 'quantity' | 'costBasis' | 'fixed' | 'accruals' | 'expenses' | 'commissions' | 'taxes' | 'invested';
const agg = (a: Partial<Record<Money, number | string>> & Pick<AssetAggregate, 'asset'> & { dealsCount?: number }): AssetAggregate => {
  const d = (k: Money) => Decimal.of(a[k] ?? 0);
  return {
    asset: a.asset,
    quantity: d('quantity'),
    costBasis: d('costBasis'),
    fixed: d('fixed'),
    accruals: d('accruals'),
    expenses: d('expenses'),
    commissions: d('commissions'),
    taxes: d('taxes'),
    invested: d('invested'),
    dealsCount: a.dealsCount ?? 1,
  };
};
const flow = (date: string, amount: number | string) => ({ date, amount: Decimal.of(amount) });
const quote = (q: Partial<AssetQuote> & Pick<AssetQuote, 'type' | 'id' | 'ticker'>): AssetQuote => ({
  name: null,
  currency: 'RUB',
  currentRate: null,
  priceChangePercentage24h: null,
  ...q,
});

// A hand-made state: an open share, a closed bond, an open ETF without a price.
const state: PortfolioState = {
  formatVersion: STATE_FORMAT_VERSION,
  assets: [
    agg({ asset: { type: 'share', id: 1 }, quantity: 15, costBasis: 1725, fixed: '175', accruals: 30, expenses: 10, commissions: 3, taxes: 4, invested: 2300, dealsCount: 6 }),
    agg({ asset: { type: 'bond', id: 2 }, quantity: 0, costBasis: 0, fixed: '20', invested: 2000, dealsCount: 2 }),
    agg({ asset: { type: 'etf', id: 3 }, quantity: 4, costBasis: 200, invested: 200 }),
  ],
  cashFlows: [flow('2023-01-01', -1000)],
  dealsCount: 9,
};
const quotes = new Map<string, AssetQuote>([
  ['share:1', quote({ type: 'share', id: 1, ticker: 'SBER', name: 'Sberbank', currentRate: 130, priceChangePercentage24h: 4 })],
  ['bond:2', quote({ type: 'bond', id: 2, ticker: 'OFZ26238', currentRate: 1005 })],
  ['etf:3', quote({ type: 'etf', id: 3, ticker: 'FXUS', currency: 'USD' })],
]);

describe('hydrateStatistics', () => {
  const s = hydrateStatistics({ state, quotes, currency: 'RUB', today: '2024-01-01' });
  const byTicker = Object.fromEntries(s.tickers.map((t) => [t.ticker, t]));

  it('values each ticker at its current price', () => {
    // SBER: 15 x 130 = 1950; income 1950 - 1725 = 225; average 1725 / 15 = 115;
    // total income 175 + 225 + 30 - 10 - 3 - 4 = 413.
    expect(byTicker.SBER).toMatchObject({
      title: 'Sberbank',
      type: 'share',
      symbol: '₽',
      totalQuantity: '15',
      currentPrice: 130,
      currentNetworth: '1950',
      currentIncome: '225',
      spent: '1725',
      averageWeightedPrice: '115',
      price_change_percentage_24h: 4,
      totalIncome: '413',
    });
    // The closed bond is worth 0 and keeps its realised 20.
    expect(byTicker.OFZ26238).toMatchObject({ totalQuantity: '0', currentNetworth: '0', currentIncome: '0', averageWeightedPrice: '0', fixed: '20', totalIncome: '20', weight: 0 });
    // The unpriced ETF has no networth of its own; its title falls back to the ticker.
    expect(byTicker.FXUS).toMatchObject({ currentPrice: null, currentNetworth: null, currentIncome: null, spent: '200', title: 'FXUS', symbol: '$' });
    // Weights: of 1950 + 200 (the ETF at cost) = 2150.
    expect(byTicker.SBER!.weight).toBeCloseTo((100 * 1950) / 2150, 3);
    expect(s.tickers.map((t) => t.ticker)).toEqual(['SBER', 'FXUS', 'OFZ26238']);
  });

  it('adds up the totals', () => {
    expect(s.totals).toMatchObject({
      currency: 'RUB',
      totalSpent: '1925', // 1725 + 0 + 200
      totalCurrentNetworth: '2150', // 1950 + 0 + 200 (at cost)
      totalCurrentIncome: '225',
      totalFixed: '195', // 175 + 20
      totalAccruals: '30',
      totalExpenses: '10',
      totalCommissions: '3',
      totalTaxes: '4',
      totalIncome: '433', // 225 + 195 + 30 - 10 - 3 - 4
      totalInvested: '4500', // 2300 + 2000 + 200
      change24h: '75', // 1950 - 1950 / 1.04
      positionsCount: 2,
      closedPositionsCount: 1,
      dealsCount: 9,
      unpricedTickers: ['FXUS'],
      valuationDate: '2024-01-01',
      xirrError: null,
    });
    expect(s.totals.totalIncomePercentage).toBeCloseTo((100 * 433) / 4500, 3);
    expect(s.totals.changePercentage24h).toBeCloseTo((100 * 75) / 2075, 3);
    // -1000 on 2023-01-01 and the current 2150 on 2024-01-01 (365 days): 2150 / 1000 - 1.
    expect(s.totals.xirr).toBeCloseTo(1.15, 8);
  });

  it('derives health metrics from the open positions', () => {
    const hhi = (1950 / 2150) ** 2 + (200 / 2150) ** 2;
    expect(s.health.concentrationScore).toBeCloseTo(100 * hhi, 2);
    // Classes (share, etf) split the same way as positions.
    expect(s.health.diversificationScore).toBeCloseTo(100 * (0.7 * (1 - hhi) + 0.3 * (1 - hhi)), 2);
    expect(s.health.topPositions.map((p) => p.ticker)).toEqual(['SBER', 'FXUS']);
    expect(s.health.assetClasses.map((c) => c.type)).toEqual(['share', 'etf']);
  });

  it('without open positions there is no terminal flow: XIRR comes from the flows alone or says why not', () => {
    const closed: PortfolioState = { ...state, assets: [state.assets[1]!], cashFlows: [flow('2024-01-01', -2000)] };
    const r = hydrateStatistics({ state: closed, quotes, currency: 'RUB', today: '2024-06-01' });
    expect(r.totals.totalCurrentNetworth).toBe('0');
    expect(r.totals.xirr).toBeNull();
    expect(r.totals.xirrError?.code).toBe('same_sign');
    expect(r.health.diversificationScore).toBeNull();
  });

  it('places the terminal flow on the last deal date when that is after today (UTC), so XIRR never runs backwards', () => {
    // 1 share bought at 300 dated tomorrow in UTC (today east of UTC+3), now worth 289.8: a 3.4 % loss. Valued
    // on today's UTC date, before the buy, the flows ran backwards and XIRR said +29,304,786 % a year.
    const sber = { type: 'share' as const, id: 1 };
    const q = new Map([['share:1', quote({ ...sber, ticker: 'SBER', currentRate: 289.8 })]]);
    const bought = (cashFlows: PortfolioState['cashFlows'], quantity: number, cost: number): PortfolioState => ({
      formatVersion: STATE_FORMAT_VERSION,
      assets: [agg({ asset: sber, quantity, costBasis: cost, invested: cost })],
      cashFlows,
      dealsCount: cashFlows.length,
    });
    const one = hydrateStatistics({ state: bought([flow('2024-01-02', -300)], 1, 300), quotes: q, currency: 'RUB', today: '2024-01-01' });
    expect(one.totals.valuationDate).toBe('2024-01-02');
    expect(one.totals.xirr).toBeNull();
    expect(one.totals.xirrError?.code).toBe('single_date');
    // With a year-old buy as well, the rate is the modest loss it is: -3.4 % over about a year and a day.
    const two = hydrateStatistics({
      state: bought([flow('2023-01-01', -300), flow('2024-01-02', -300)], 2, 600),
      quotes: q,
      currency: 'RUB',
      today: '2024-01-01',
    });
    expect(two.totals.valuationDate).toBe('2024-01-02');
    expect(two.totals.xirr).toBeLessThan(0);
    expect(two.totals.xirr).toBeGreaterThan(-0.07);
    // A deal dated today or earlier leaves the valuation date today.
    expect(hydrateStatistics({ state: bought([flow('2023-06-01', -300)], 1, 300), quotes: q, currency: 'RUB', today: '2024-01-01' }).totals.valuationDate).toBe(
      '2024-01-01',
    );
  });

  it('answers money as exact decimal text: no binary noise in sums, values or large prices', () => {
    const big: PortfolioState = {
      formatVersion: STATE_FORMAT_VERSION,
      assets: [
        agg({ asset: { type: 'share', id: 1 }, quantity: 1, costBasis: '42290747.88', invested: '42290747.88', commissions: '36716396.59' }),
        agg({ asset: { type: 'bond', id: 2 }, quantity: 1, costBasis: '1000000000000000', invested: '1000000000000000', accruals: '0.1', taxes: '0.2' }),
      ],
      cashFlows: [flow('2023-01-01', '-1000000079007144.47')],
      dealsCount: 2,
    };
    const q = new Map([
      ['share:1', quote({ type: 'share', id: 1, ticker: 'SBER', currentRate: 42290747.88 })],
      ['bond:2', quote({ type: 'bond', id: 2, ticker: 'OFZ', currentRate: 1e15 })],
    ]);
    const r = hydrateStatistics({ state: big, quotes: q, currency: 'RUB', today: '2024-01-01' });
    const t = Object.fromEntries(r.tickers.map((x) => [x.ticker, x]));
    expect(t.SBER).toMatchObject({ spent: '42290747.88', currentNetworth: '42290747.88', commissions: '36716396.59', totalIncome: '-36716396.59' });
    expect(t.OFZ).toMatchObject({ spent: '1000000000000000', currentNetworth: '1000000000000000', averageWeightedPrice: '1000000000000000' });
    expect(r.totals).toMatchObject({
      totalCommissions: '36716396.59',
      totalCurrentNetworth: '1000000042290747.88',
      totalInvested: '1000000042290747.88',
      totalIncome: '-36716396.69',
    });
    expect(r.health.topPositions.map((p) => p.value)).toEqual(['1000000000000000', '42290747.88']);
  });

  it('treats a rate that is no finite number as unknown (valued at cost), not as an error', () => {
    const q = new Map([['share:1', quote({ type: 'share', id: 1, ticker: 'SBER', currentRate: Number.NaN, priceChangePercentage24h: Number.POSITIVE_INFINITY })]]);
    const r = hydrateStatistics({ state: { ...state, assets: [state.assets[0]!] }, quotes: q, currency: 'RUB', today: '2024-01-01' });
    expect(r.tickers[0]).toMatchObject({ currentPrice: null, currentNetworth: null, spent: '1725' });
    expect(r.totals).toMatchObject({ unpricedTickers: ['SBER'], totalCurrentNetworth: '1725', change24h: '0' });
  });
});
