import type { AssetRef, DealType } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { describe, expect, it } from 'vitest';
import { aggregateDeals } from '../statistics/aggregate-deals.js';
import { computeHoldings } from '../holdings/holdings.js';
import type { DealInput } from '../statistics/statistics.types.js';
import { portfolioDividends } from './portfolio-dividends.js';

const sber = { type: 'share' as const, id: 1 };
const gazp = { type: 'share' as const, id: 2 };
const ofz = { type: 'bond' as const, id: 3 };
let nextId = 1;
const deal = (type: DealType, asset: AssetRef, quantity: number | string, price: number | string, date: string): DealInput => ({
  id: nextId++,
  type,
  asset,
  quantity: Decimal.of(quantity),
  price: Decimal.of(price),
  commission: Decimal.ZERO,
  date,
});
const names: Record<number, string> = { 1: 'SBER', 2: 'GAZP', 3: 'OFZ' };
const describeAsset = (ref: AssetRef) => ({ ticker: names[ref.id]!, title: `${names[ref.id]} name` });

const deals = [
  deal('buy', sber, 10, 100, '2023-01-10'),
  deal('buy', sber, '0.5', 130, '2024-02-10'),
  deal('dividend', sber, 10, '0.1', '2023-07-01'),
  deal('dividend', sber, '10.5', '33.3', '2024-07-01'),
  // GAZP: closed (everything sold): its dividend counts as received, its upcoming one is not due.
  deal('buy', gazp, 10, 200, '2023-01-15'),
  deal('dividend', gazp, 10, 5, '2023-02-01'),
  deal('sell', gazp, 10, 180, '2023-03-15'),
  deal('buy', ofz, 3, 1000, '2024-01-01'),
  deal('coupon', ofz, 3, '35.9', '2024-06-01'),
];

describe('portfolioDividends', () => {
  const result = portfolioDividends({
    deals,
    upcoming: [
      { type: 'share', id: 1, record_date: '2025-07-18', value: '34.84', currency: 'RUB' },
      { type: 'share', id: 2, record_date: '2025-07-10', value: '10', currency: 'RUB' },
      { type: 'bond', id: 3, record_date: '2025-06-01', value: '35.9', currency: 'RUB' },
      { type: 'share', id: 9, record_date: '2025-06-01', value: '1', currency: 'RUB' },
    ],
    describe: describeAsset,
  });

  it('lists the upcoming dividends of open positions, soonest first, with the exact amount due on the quantity', () => {
    expect(result.expected).toEqual([
      { assetable: ofz, ticker: 'OFZ', title: 'OFZ name', record_date: '2025-06-01', payment_date: null, per_share: '35.9', currency: 'RUB', quantity: '3', amount: '107.7' },
      { assetable: sber, ticker: 'SBER', title: 'SBER name', record_date: '2025-07-18', payment_date: null, per_share: '34.84', currency: 'RUB', quantity: '10.5', amount: '365.82' },
    ]);
  });

  it('sums dividend and coupon deals per year, and the years add up to the holdings’ dividends', () => {
    expect(result.received_by_year).toEqual([
      { year: 2023, amount: '51' },
      { year: 2024, amount: '457.35' },
    ]);
    const holdings = computeHoldings({ state: aggregateDeals(deals), quotes: new Map(), currency: 'RUB' });
    const sum = result.received_by_year.reduce((s, y) => s.plus(Decimal.of(y.amount)), Decimal.ZERO);
    expect(sum.toString()).toBe(Decimal.of(holdings.totals.dividends).toString());
  });

  it('answers nothing for a portfolio without deals', () => {
    expect(portfolioDividends({ deals: [], upcoming: [], describe: describeAsset })).toEqual({ expected: [], received_by_year: [] });
  });
});
