import { describe, expect, it } from 'vitest';
import { addPeriod, anchorDayOf, buysLessThanADay, MAX_PERIODS_PER_PAYMENT, paidUntil, planCatalog, planForPayment } from './plan-catalog.js';

describe('planCatalog', () => {
  it('keeps prices as two-place decimal text, and refuses one that is not a positive amount', () => {
    const [m, y] = planCatalog({ basicMonthly: '299', basicYearly: '2990.5', currency: 'RUB' });
    expect([m?.price, y?.price]).toEqual(['299.00', '2990.50']);
    expect(() => planCatalog({ basicMonthly: '0', basicYearly: '2990', currency: 'RUB' })).toThrow(/plan price "0"/);
  });
});

describe('planForPayment', () => {
  const plans = planCatalog({ basicMonthly: '299.00', basicYearly: '2990.00', currency: 'RUB' });
  const bought = (amount: string, currency = 'RUB') => {
    const p = planForPayment(plans, amount, currency);
    return p && { code: p.plan.code, share: p.share };
  };

  it('an exact price is one whole period of its plan', () => {
    expect(bought('299.00')).toEqual({ code: 'basic-m', share: null });
    expect(bought('2990.00')).toEqual({ code: 'basic-y', share: null });
  });

  it('any other amount in the currency buys its share of the plan whose price is nearest by ratio', () => {
    expect(bought('150.00')).toEqual({ code: 'basic-m', share: { paidMinor: 15000, priceMinor: 29900 } });
    expect(bought('300.00')).toEqual({ code: 'basic-m', share: { paidMinor: 30000, priceMinor: 29900 } });
    // 945.55 is the geometric middle of the two prices (sqrt(299 * 2990)): just below it is monthly, just above yearly.
    expect(bought('945.00')?.code).toBe('basic-m');
    expect(bought('946.00')?.code).toBe('basic-y');
    expect(bought('1500.00')).toEqual({ code: 'basic-y', share: { paidMinor: 150000, priceMinor: 299000 } });
    expect(bought('2800.00')).toEqual({ code: 'basic-y', share: { paidMinor: 280000, priceMinor: 299000 } });
    expect(bought('5000.00')).toEqual({ code: 'basic-y', share: { paidMinor: 500000, priceMinor: 299000 } });
    expect(bought('0.01')).toEqual({ code: 'basic-m', share: { paidMinor: 1, priceMinor: 29900 } });
  });

  it('nothing for no positive amount, a malformed one, or a currency no plan is priced in', () => {
    for (const amount of ['0.00', '-1.00', '1.001', 'abc']) expect(bought(amount)).toBeUndefined();
    expect(bought('299.00', 'USD')).toBeUndefined();
  });
});

describe('paidUntil', () => {
  const from = new Date('2026-01-31T10:00:00.000Z');

  it('a whole period is a calendar one', () => {
    expect(paidUntil(from, 'month', null).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(paidUntil(from, 'month', { paidMinor: 29900, priceMinor: 29900 })).toEqual(addPeriod(from, 'month'));
    expect(paidUntil(from, 'year', null).toISOString()).toBe('2027-01-31T10:00:00.000Z');
  });

  it('a share is that share of the period starting then, to the millisecond, rounded down', () => {
    // February 2026 from Jan 31: 28 days; half of it is 14 days.
    expect(paidUntil(from, 'month', { paidMinor: 1, priceMinor: 2 }).toISOString()).toBe('2026-02-14T10:00:00.000Z');
    // 0.01 of 299.00 of a 28-day month: 2419200000 ms / 29900 = 80909.69... ms.
    expect(paidUntil(from, 'month', { paidMinor: 1, priceMinor: 29900 }).getTime() - from.getTime()).toBe(80_909);
    expect(paidUntil(from, 'year', { paidMinor: 500000, priceMinor: 299000 }).getTime() - from.getTime()).toBe(
      Math.floor((365 * 86_400_000 * 500000) / 299000),
    );
  });

  it('keeps the anchor day after a shorter month, and only while the end is on it', () => {
    const feb28 = new Date('2026-02-28T10:00:00.000Z');
    expect(paidUntil(feb28, 'month', null, anchorDayOf(from, feb28)).toISOString()).toBe('2026-03-31T10:00:00.000Z');
    expect(paidUntil(feb28, 'month', null).toISOString()).toBe('2026-03-28T10:00:00.000Z');
    expect(anchorDayOf(from, new Date('2026-02-14T10:00:00.000Z'))).toBeUndefined();
    expect(anchorDayOf(from, new Date('2026-02-28T10:00:01.000Z'))).toBeUndefined();
    expect(anchorDayOf(new Date('2026-01-15T10:00:00.000Z'), new Date('2026-02-15T10:00:00.000Z'))).toBe(15);
  });

  it('at most MAX_PERIODS_PER_PAYMENT periods', () => {
    const year = addPeriod(from, 'year').getTime() - from.getTime();
    expect(paidUntil(from, 'year', { paidMinor: 99_999_999_999_999, priceMinor: 299000 }).getTime() - from.getTime()).toBe(year * MAX_PERIODS_PER_PAYMENT);
  });
});

describe('buysLessThanADay', () => {
  it('compares the share with one day of the period starting then, exactly: the price over that period\'s days', () => {
    const year2026 = new Date('2026-01-31T10:00:00.000Z');
    const year2027 = new Date('2027-03-01T00:00:00.000Z');
    // 2990.00 a year: a day is 8.1917… of 365 days, 8.1693… of 366 (March 2027 to March 2028).
    expect(buysLessThanADay(year2026, 'year', { paidMinor: 819, priceMinor: 299000 })).toBe(true);
    expect(buysLessThanADay(year2026, 'year', { paidMinor: 820, priceMinor: 299000 })).toBe(false);
    expect(buysLessThanADay(year2027, 'year', { paidMinor: 816, priceMinor: 299000 })).toBe(true);
    expect(buysLessThanADay(year2027, 'year', { paidMinor: 817, priceMinor: 299000 })).toBe(false);
    // Exactly one day of a 28-day February is one.
    expect(buysLessThanADay(year2026, 'month', { paidMinor: 1, priceMinor: 28 })).toBe(false);
    expect(buysLessThanADay(year2026, 'month', { paidMinor: 1, priceMinor: 29900 })).toBe(true);
    expect(buysLessThanADay(year2026, 'month', null)).toBe(false);
  });
});
