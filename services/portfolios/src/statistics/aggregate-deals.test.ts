import { describe, expect, it } from 'vitest';
import { aggregateDeals } from './aggregate-deals.js';
import { finalHolding } from '../deals/holding-timeline.js';
import type { DealInput } from './statistics.types.js';

const share = { type: 'share' as const, id: 1 };
const bond = { type: 'bond' as const, id: 2 };
let nextId = 1;
const deal = (d: Omit<DealInput, 'id' | 'commission'> & { commission?: number }): DealInput => ({ id: nextId++, commission: 0, ...d });

describe('aggregateDeals', () => {
  it('aggregates buys, a partial sell, a dividend, a fee and a tax (weighted average cost)', () => {
    const state = aggregateDeals([
      deal({ type: 'buy', asset: share, quantity: 10, price: 100, commission: 1, date: '2024-01-10' }),
      deal({ type: 'buy', asset: share, quantity: 10, price: 130, commission: 1, date: '2024-02-10' }),
      deal({ type: 'sell', asset: share, quantity: 5, price: 150, commission: 1, date: '2024-03-01' }),
      deal({ type: 'dividend', asset: share, quantity: 15, price: 2, date: '2024-04-01' }),
      deal({ type: 'fee', asset: share, quantity: 1, price: 10, date: '2024-05-01' }),
      deal({ type: 'tax', asset: share, quantity: 1, price: 4, date: '2024-05-02' }),
    ]);
    expect(state.assets).toHaveLength(1);
    const a = state.assets[0]!;
    // 20 bought for 1000 + 1300 = 2300 -> average 115; 5 sold: cost 575, realised 5 x (150 - 115) = 175.
    expect(a.quantity).toBe(15);
    expect(a.costBasis).toBeCloseTo(1725, 9);
    expect(a.fixed).toBeCloseTo(175, 9);
    expect(a.accruals).toBe(30);
    expect(a.expenses).toBe(10);
    expect(a.taxes).toBe(4);
    expect(a.commissions).toBe(3);
    expect(a.invested).toBe(2300);
    expect(a.dealsCount).toBe(6);
    // Investor's flows: -(1000+1), -(1300+1), +(750-1), +30, -10, -4.
    expect(state.cashFlows).toEqual([
      { date: '2024-01-10', amount: -1001 },
      { date: '2024-02-10', amount: -1301 },
      { date: '2024-03-01', amount: 749 },
      { date: '2024-04-01', amount: 30 },
      { date: '2024-05-01', amount: -10 },
      { date: '2024-05-02', amount: -4 },
    ]);
    expect(state.dealsCount).toBe(6);
  });

  it('orders by date regardless of input order and resets cost when a position is closed', () => {
    const state = aggregateDeals([
      deal({ type: 'buy', asset: bond, quantity: 3, price: 50, date: '2024-06-01' }),
      deal({ type: 'sell', asset: bond, quantity: 2, price: 90, date: '2024-03-01' }),
      deal({ type: 'buy', asset: bond, quantity: 2, price: 80, date: '2024-01-01' }),
    ]);
    const a = state.assets[0]!;
    // Jan: 2 @ 80; Mar: sell 2 @ 90 -> fixed 20, holding 0, cost 0; Jun: 3 @ 50 -> average 50.
    expect(a.fixed).toBe(20);
    expect(a.quantity).toBe(3);
    expect(a.costBasis).toBe(150);
  });

  it('within one date applies buys before sells', () => {
    const sellFirst = { ...deal({ type: 'sell', asset: share, quantity: 4, price: 12, date: '2024-01-05' }), id: 1 };
    const buyLater = { ...deal({ type: 'buy', asset: share, quantity: 4, price: 10, date: '2024-01-05' }), id: 2 };
    const a = aggregateDeals([sellFirst, buyLater]).assets[0]!;
    expect(a.quantity).toBe(0);
    expect(a.fixed).toBe(8);
    expect(a.costBasis).toBe(0);
  });

  it('sums cash flows of several assets on the same date', () => {
    const state = aggregateDeals([
      deal({ type: 'buy', asset: share, quantity: 1, price: 100, commission: 0.5, date: '2024-01-01' }),
      deal({ type: 'buy', asset: bond, quantity: 2, price: 1000, date: '2024-01-01' }),
      deal({ type: 'coupon', asset: bond, quantity: 2, price: 35.5, date: '2024-07-01' }),
    ]);
    expect(state.assets).toHaveLength(2);
    expect(state.cashFlows).toEqual([
      { date: '2024-01-01', amount: -2100.5 },
      { date: '2024-07-01', amount: 71 },
    ]);
  });

  it('treats decimal dust as zero when everything is sold', () => {
    const a = aggregateDeals([
      deal({ type: 'buy', asset: share, quantity: 0.1, price: 10, date: '2024-01-01' }),
      deal({ type: 'buy', asset: share, quantity: 0.2, price: 10, date: '2024-01-02' }),
      deal({ type: 'sell', asset: share, quantity: 0.3, price: 10, date: '2024-01-03' }),
    ]).assets[0]!;
    expect(a.quantity).toBe(0);
    expect(a.costBasis).toBe(0);
  });
  it('keeps a 1e-10 leftover open, as the deal service does (exact sums, no tolerance)', () => {
    const deals = [
      deal({ type: 'buy', asset: share, quantity: 1, price: 10, date: '2024-01-01' }),
      deal({ type: 'sell', asset: share, quantity: 0.9999999999, price: 12, date: '2024-01-02' }),
    ];
    const a = aggregateDeals(deals).assets[0]!;
    // The deal service's rule: finalHolding of these deals is 1e-10 > 0, so a PositionClosed was never recorded.
    expect(finalHolding(deals)).toBeGreaterThan(0);
    expect(a.quantity).toBeGreaterThan(0);
    expect(a.quantity).toBeCloseTo(1e-10, 20);
    expect(a.costBasis).toBeCloseTo(1e-9, 15);
  });

  it('holds exactly zero after decimal quantities that cancel out exactly', () => {
    const a = aggregateDeals([
      deal({ type: 'buy', asset: share, quantity: 0.7, price: 10, date: '2024-01-01' }),
      deal({ type: 'buy', asset: share, quantity: 0.1, price: 10, date: '2024-01-01' }),
      deal({ type: 'sell', asset: share, quantity: 0.8, price: 10, date: '2024-01-03' }),
    ]).assets[0]!;
    expect(a.quantity).toBe(0);
    expect(a.costBasis).toBe(0);
  });
});
