import { describe, expect, it } from 'vitest';
import { type DividendRecord, dividendWindow, dividendYield } from './dividend-yield.js';

const rub = (recordDate: string, value: number): DividendRecord => ({ recordDate, value, currency: 'RUB' });

describe('dividendYield', () => {
  const today = '2024-03-10';

  it('is the next 12 months of dividends over the price, in percent', () => {
    // (33.3 + 10) / 289.83 × 100
    const y = dividendYield({ price: 289.83, currency: 'RUB', today, dividends: [rub('2024-07-11', 33.3), rub('2024-12-01', 10)] });
    expect(y).toBeCloseTo(14.9398, 4);
  });

  it('counts today and excludes the same day a year ahead and the past', () => {
    const dividends = [rub('2024-03-10', 5), rub('2025-03-09', 3), rub('2025-03-10', 100), rub('2024-03-09', 100)];
    expect(dividendYield({ price: 100, currency: 'RUB', today, dividends })).toBe(8);
  });

  it('counts only dividends in the price currency', () => {
    const dividends = [rub('2024-05-01', 4), { recordDate: '2024-05-01', value: 1, currency: 'USD' }];
    expect(dividendYield({ price: 200, currency: 'RUB', today, dividends })).toBe(2);
  });

  it('is 0 when dividends are known and none falls in the window', () => {
    expect(dividendYield({ price: 100, currency: 'RUB', today, dividends: [] })).toBe(0);
    expect(dividendYield({ price: 100, currency: 'RUB', today, dividends: [rub('2023-07-01', 10)] })).toBe(0);
  });

  it('is null without a price or when dividends are unknown', () => {
    expect(dividendYield({ price: null, currency: 'RUB', today, dividends: [rub('2024-05-01', 4)] })).toBeNull();
    expect(dividendYield({ price: 0, currency: 'RUB', today, dividends: [rub('2024-05-01', 4)] })).toBeNull();
    expect(dividendYield({ price: 100, currency: 'RUB', today, dividends: null })).toBeNull();
  });

  it('ends the window on Feb 28 when today is Feb 29', () => {
    expect(dividendWindow('2024-02-29')).toEqual({ from: '2024-02-29', until: '2025-02-28' });
    const dividends = [rub('2025-02-27', 1), rub('2025-02-28', 50)];
    expect(dividendYield({ price: 10, currency: 'RUB', today: '2024-02-29', dividends })).toBe(10);
  });
});
