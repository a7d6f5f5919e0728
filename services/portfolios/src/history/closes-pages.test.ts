import { describe, expect, it } from 'vitest';
import { checkedPage, joinPages } from './closes-pages.js';
import { dayNumber } from './value-history.js';

const row = (start: string, days: unknown[], units: unknown[], scale = 2) => ({ start, days, units, scale });

describe('closes pages', () => {
  it('turns day offsets into day numbers and joins an asset’s pages in order', () => {
    const first = checkedPage(row('2024-03-01', [0, 3], [10050, 10100]), undefined);
    const second = checkedPage(row('2024-03-05', [0, 1], [101, 10200], 0), first);
    const joined = joinPages([first, second]);
    const base = dayNumber('2024-03-01');
    expect(Array.from(joined.days)).toEqual([base, base + 3, base + 4, base + 5]);
    expect(Array.from(joined.units)).toEqual([10050, 10100, 101, 10200]);
    expect(Array.from(joined.scales)).toEqual([2, 2, 0, 0]);
    expect(joined.units).toBeInstanceOf(Float64Array);
  });

  it('keeps a unit count past 2^53 as its digits', () => {
    const joined = joinPages([checkedPage(row('2024-03-01', [0, 1], [1, '123456789012345678'], 8), undefined)]);
    expect(Array.from(joined.units)).toEqual([1, '123456789012345678']);
  });

  it('refuses a day not after the previous one, also across pages, and a close that is not a unit count', () => {
    const first = checkedPage(row('2024-03-01', [0, 3], [1, 2]), undefined);
    expect(() => checkedPage(row('2024-03-04', [0], [1]), first)).toThrow('a day is not after the previous one');
    expect(() => checkedPage(row('2024-03-01', [0, 0], [1, 2]), undefined)).toThrow('a day is not after the previous one');
    expect(() => checkedPage(row('2024-03-01', [0.5], [1]), undefined)).toThrow('a day is not after the previous one');
    expect(() => checkedPage(row('2024-03-01', [0], [1.5]), undefined)).toThrow('a close is not a unit count');
    expect(() => checkedPage(row('2024-03-01', [0], ['12a']), undefined)).toThrow('a close is not a unit count');
    expect(() => checkedPage(row('2024-03-01', [0, 1], [1]), undefined)).toThrow('days and units differ in length');
  });
});
