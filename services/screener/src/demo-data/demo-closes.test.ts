import { describe, expect, it } from 'vitest';
import { DEMO_CLOSE_DAYS, daysBefore, demoCloses } from './demo-closes.js';

describe('demoCloses', () => {
  const shares = [
    { assetId: 1, ticker: 'SBER', rate: 289.83 },
    { assetId: 2, ticker: 'VTBR', rate: 0.02418 },
    { assetId: 3, ticker: 'NONE', rate: 0 },
  ];

  it('gives every priced share a close on each of the 14 days before today, none for today', () => {
    const closes = demoCloses(shares, '2026-03-01');
    expect(DEMO_CLOSE_DAYS).toBeGreaterThanOrEqual(14);
    for (const id of [1, 2]) {
      const dates = closes.filter((c) => c.assetId === id).map((c) => c.tradeDate);
      expect(dates).toHaveLength(DEMO_CLOSE_DAYS);
      // Across the month end of a non-leap February.
      expect(dates[0]).toBe('2026-02-28');
      expect(dates.at(-1)).toBe('2026-02-15');
      expect(new Set(dates).size).toBe(DEMO_CLOSE_DAYS);
    }
    expect(closes.some((c) => c.assetId === 3)).toBe(false);
  });

  it('walks from the current price by at most 2 % a day, the same way on every load', () => {
    const closes = demoCloses(shares, '2026-11-28');
    for (const share of shares.slice(0, 2)) {
      const walk = [share.rate, ...closes.filter((c) => c.assetId === share.assetId).map((c) => c.close)];
      for (let i = 1; i < walk.length; i++) {
        expect(walk[i]).toBeGreaterThan(0);
        expect(Math.abs(walk[i]! / walk[i - 1]! - 1)).toBeLessThanOrEqual(0.0201);
      }
      // Not a flat line: a 7-day change of exactly 0 everywhere would look as broken as none.
      expect(new Set(walk).size).toBeGreaterThan(DEMO_CLOSE_DAYS / 2);
    }
    expect(demoCloses(shares, '2026-11-28')).toEqual(closes);
  });

  it('counts calendar days back', () => {
    expect(daysBefore('2024-03-01', 1)).toBe('2024-02-29');
    expect(daysBefore('2026-01-03', 7)).toBe('2025-12-27');
    expect(() => demoCloses(shares, '28.11.2026')).toThrow(/YYYY-MM-DD/);
  });
});
