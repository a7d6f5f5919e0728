import { describe, expect, it } from 'vitest';
import { hydrateStatistics } from './hydrate-statistics.js';
import { type AssetAggregate, type AssetQuote, type PortfolioState, STATE_FORMAT_VERSION } from './statistics.types.js';

const agg = (a: Partial<AssetAggregate> & Pick<AssetAggregate, 'asset'>): AssetAggregate => ({
  quantity: 0,
  costBasis: 0,
  fixed: 0,
  accruals: 0,
  expenses: 0,
  commissions: 0,
  taxes: 0,
  invested: 0,
  dealsCount: 1,
  ...a,
});
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
    agg({ asset: { type: 'share', id: 1 }, quantity: 15, costBasis: 1725, fixed: 175, accruals: 30, expenses: 10, commissions: 3, taxes: 4, invested: 2300, dealsCount: 6 }),
    agg({ asset: { type: 'bond', id: 2 }, quantity: 0, costBasis: 0, fixed: 20, invested: 2000, dealsCount: 2 }),
    agg({ asset: { type: 'etf', id: 3 }, quantity: 4, costBasis: 200, invested: 200 }),
  ],
  cashFlows: [{ date: '2023-01-01', amount: -1000 }],
  dealsCount: 9,
};
const quotes = new Map<string, AssetQuote>([
  ['share:1', quote({ type: 'share', id: 1, ticker: 'SBER', name: 'Sberbank', currentRate: 130, priceChangePercentage24h: 4 })],
  ['bond:2', quote({ type: 'bond', id: 2, ticker: 'OFZ26238', currentRate: 1005 })],
  ['etf:3', quote({ type: 'etf', id: 3, ticker: 'FXUS', currency: 'USD' })],
]);

describe('hydrateStatistics', () => {
  const s = hydrateStatistics({ state, quotes, currency: 'RUB', valuationDate: '2024-01-01' });
  const byTicker = Object.fromEntries(s.tickers.map((t) => [t.ticker, t]));

  it('values each ticker at its current price', () => {
    // SBER: 15 x 130 = 1950; income 1950 - 1725 = 225; average 1725 / 15 = 115;
    // total income 175 + 225 + 30 - 10 - 3 - 4 = 413.
    expect(byTicker.SBER).toMatchObject({
      title: 'Sberbank',
      type: 'share',
      symbol: '₽',
      totalQuantity: 15,
      currentPrice: 130,
      currentNetworth: 1950,
      currentIncome: 225,
      spent: 1725,
      averageWeightedPrice: 115,
      price_change_percentage_24h: 4,
      totalIncome: 413,
    });
    // The closed bond is worth 0 and keeps its realised 20.
    expect(byTicker.OFZ26238).toMatchObject({ totalQuantity: 0, currentNetworth: 0, currentIncome: 0, averageWeightedPrice: 0, fixed: 20, totalIncome: 20, weight: 0 });
    // The unpriced ETF has no networth of its own; its title falls back to the ticker.
    expect(byTicker.FXUS).toMatchObject({ currentPrice: null, currentNetworth: null, currentIncome: null, spent: 200, title: 'FXUS', symbol: '$' });
    // Weights: of 1950 + 200 (the ETF at cost) = 2150.
    expect(byTicker.SBER!.weight).toBeCloseTo((100 * 1950) / 2150, 3);
    expect(s.tickers.map((t) => t.ticker)).toEqual(['SBER', 'FXUS', 'OFZ26238']);
  });

  it('adds up the totals', () => {
    expect(s.totals).toMatchObject({
      currency: 'RUB',
      totalSpent: 1925, // 1725 + 0 + 200
      totalCurrentNetworth: 2150, // 1950 + 0 + 200 (at cost)
      totalCurrentIncome: 225,
      totalFixed: 195, // 175 + 20
      totalAccruals: 30,
      totalExpenses: 10,
      totalCommissions: 3,
      totalTaxes: 4,
      totalIncome: 433, // 225 + 195 + 30 - 10 - 3 - 4
      totalInvested: 4500, // 2300 + 2000 + 200
      change24h: 75, // 1950 - 1950 / 1.04
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
    const closed: PortfolioState = { ...state, assets: [state.assets[1]!], cashFlows: [{ date: '2024-01-01', amount: -2000 }] };
    const r = hydrateStatistics({ state: closed, quotes, currency: 'RUB', valuationDate: '2024-06-01' });
    expect(r.totals.totalCurrentNetworth).toBe(0);
    expect(r.totals.xirr).toBeNull();
    expect(r.totals.xirrError?.code).toBe('same_sign');
    expect(r.health.diversificationScore).toBeNull();
  });
});
