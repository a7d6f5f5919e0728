import type { AssetRef, DealType } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { describe, expect, it } from 'vitest';
import { aggregateDeals } from './aggregate-deals.js';
import { finalHolding } from '../deals/holding-timeline.js';
import type { AssetAggregate, DealInput, PortfolioState } from './statistics.types.js';

const share = { type: 'share' as const, id: 1 };
const bond = { type: 'bond' as const, id: 2 };
let nextId = 1;
type Num = number | string;
const deal = (d: { type: DealType; asset: AssetRef; quantity: Num; price: Num; commission?: Num; date: string }): DealInput => ({
  ...d,
  id: nextId++,
  quantity: Decimal.of(d.quantity),
  price: Decimal.of(d.price),
  commission: Decimal.of(d.commission ?? 0),
});
/** An aggregate's decimals as numbers, for the assertions below (the exact text is asserted where it matters). */
const plain = (a: AssetAggregate) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v instanceof Decimal ? v.toNumber() : v])) as Record<keyof AssetAggregate, number>;
const flows = (s: PortfolioState) => s.cashFlows.map((f) => ({ date: f.date, amount: f.amount.toNumber() }));

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
    const a = plain(state.assets[0]!);
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
    expect(flows(state)).toEqual([
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
    const a = plain(state.assets[0]!);
    // Jan: 2 @ 80; Mar: sell 2 @ 90 -> fixed 20, holding 0, cost 0; Jun: 3 @ 50 -> average 50.
    expect(a.fixed).toBe(20);
    expect(a.quantity).toBe(3);
    expect(a.costBasis).toBe(150);
  });

  it('within one date applies buys before sells', () => {
    const sellFirst = { ...deal({ type: 'sell', asset: share, quantity: 4, price: 12, date: '2024-01-05' }), id: 1 };
    const buyLater = { ...deal({ type: 'buy', asset: share, quantity: 4, price: 10, date: '2024-01-05' }), id: 2 };
    const a = plain(aggregateDeals([sellFirst, buyLater]).assets[0]!);
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
    expect(flows(state)).toEqual([
      { date: '2024-01-01', amount: -2100.5 },
      { date: '2024-07-01', amount: 71 },
    ]);
  });

  it('treats decimal dust as zero when everything is sold', () => {
    const a = plain(
      aggregateDeals([
      deal({ type: 'buy', asset: share, quantity: 0.1, price: 10, date: '2024-01-01' }),
      deal({ type: 'buy', asset: share, quantity: 0.2, price: 10, date: '2024-01-02' }),
      deal({ type: 'sell', asset: share, quantity: 0.3, price: 10, date: '2024-01-03' }),
    ]).assets[0]!,
    );
    expect(a.quantity).toBe(0);
    expect(a.costBasis).toBe(0);
  });
  it('keeps a 0.00000001 leftover open, as the deal service does (exact sums, no tolerance)', () => {
    const deals = [
      deal({ type: 'buy', asset: share, quantity: 1, price: 10, date: '2024-01-01' }),
      deal({ type: 'sell', asset: share, quantity: '0.99999999', price: 12, date: '2024-01-02' }),
    ];
    const a = aggregateDeals(deals).assets[0]!;
    // The deal service's rule: finalHolding of these deals is 0.00000001 > 0, so a PositionClosed was never recorded.
    expect(finalHolding(deals).toString()).toBe('0.00000001');
    expect(a.quantity.toString()).toBe('0.00000001');
    expect(a.costBasis.toString()).toBe('0.0000001');
    expect(a.fixed.toString()).toBe('1.99999998');
  });

  it('sums money exactly: amounts, commissions and the cost basis carry no binary noise', () => {
    const state = aggregateDeals([
      deal({ type: 'buy', asset: share, quantity: 1, price: '42290747.88', commission: '36716396.59', date: '2024-01-01' }),
      deal({ type: 'buy', asset: share, quantity: '0.1', price: '0.2', commission: '0.1', date: '2024-01-02' }),
      deal({ type: 'sell', asset: share, quantity: '0.3', price: '3', commission: '0.2', date: '2024-01-03' }),
      deal({ type: 'dividend', asset: bond, quantity: 3, price: '0.1', date: '2024-01-03' }),
    ]);
    const [a, b] = state.assets;
    expect(a!.invested.toString()).toBe('42290747.9');
    expect(a!.commissions.toString()).toBe('36716396.89');
    expect(b!.accruals.toString()).toBe('0.3');
    // Cost of 1.1 units 42290747.9; 0.3 sold at the average: 12687224.37 / 1.1 = 11533840.33636363636363636364 (20 places).
    expect(a!.costBasis.toString()).toBe('30756907.56363636363636363636');
    // Realised: 0.3 x 3 - 11533840.33636363636363636364.
    expect(a!.fixed.toString()).toBe('-11533839.43636363636363636364');
    expect(state.cashFlows.map((f) => `${f.date} ${f.amount}`)).toEqual(['2024-01-01 -79007144.47', '2024-01-02 -0.12', '2024-01-03 1']);
  });

  it('holds exactly zero after decimal quantities that cancel out exactly', () => {
    const a = plain(
      aggregateDeals([
      deal({ type: 'buy', asset: share, quantity: 0.7, price: 10, date: '2024-01-01' }),
      deal({ type: 'buy', asset: share, quantity: 0.1, price: 10, date: '2024-01-01' }),
      deal({ type: 'sell', asset: share, quantity: 0.8, price: 10, date: '2024-01-03' }),
    ]).assets[0]!,
    );
    expect(a.quantity).toBe(0);
    expect(a.costBasis).toBe(0);
  });
});
