import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { screenerDataFile } from '../package-root.js';
import { demoDividendsFileSchema, nextOccurrence, placeDemoDividends } from './demo-dividends.js';

describe('nextOccurrence', () => {
  it('is this year when the day is still ahead (today included), else next year', () => {
    expect(nextOccurrence('07-11', '2024-02-15')).toBe('2024-07-11');
    expect(nextOccurrence('02-15', '2024-02-15')).toBe('2024-02-15');
    expect(nextOccurrence('02-14', '2024-02-15')).toBe('2025-02-14');
    expect(nextOccurrence('01-08', '2024-12-31')).toBe('2025-01-08');
  });
  it('places Feb 29 on Feb 28 in other years', () => {
    expect(nextOccurrence('02-29', '2025-01-01')).toBe('2025-02-28');
    expect(nextOccurrence('02-29', '2024-01-01')).toBe('2024-02-29');
  });
});

describe('demo dividends file', () => {
  const file = demoDividendsFileSchema.parse(JSON.parse(readFileSync(screenerDataFile('demo-dividends.json'), 'utf8')));

  it('covers 20-40 tickers, some twice a year, some with none', () => {
    expect(file.dividends.length).toBeGreaterThanOrEqual(20);
    expect(file.dividends.length).toBeLessThanOrEqual(40);
    expect(new Set(file.dividends.map((d) => d.ticker)).size).toBe(file.dividends.length);
    expect(file.dividends.some((d) => d.payments.length === 2)).toBe(true);
    expect(file.dividends.find((d) => d.ticker === 'GAZP')?.payments).toEqual([]);
    expect(file.notice).toMatch(/DEMO DATA/);
  });

  it('places every payment within the next 12 months', () => {
    for (const today of ['2024-02-15', '2025-12-31', '2028-02-29']) {
      const placed = placeDemoDividends(file, today);
      expect(placed.length).toBe(file.dividends.reduce((n, d) => n + d.payments.length, 0));
      const yearAhead = `${Number(today.slice(0, 4)) + 1}${today.slice(4)}`;
      for (const p of placed) {
        expect(p.recordDate >= today).toBe(true);
        expect(p.recordDate < yearAhead).toBe(true);
      }
    }
  });
});
