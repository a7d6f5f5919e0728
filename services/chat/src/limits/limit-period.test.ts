import { describe, expect, it } from 'vitest';
import { dayPeriod } from './limit-period.js';

describe('dayPeriod', () => {
  it('is the Moscow day: 23:59 MSK is still today, the reset is the next midnight MSK', () => {
    const p = dayPeriod(new Date('2026-03-10T20:59:00Z'), 'Europe/Moscow');
    expect(p.start.toISOString()).toBe('2026-03-09T21:00:00.000Z');
    expect(p.resetsAt.toISOString()).toBe('2026-03-10T21:00:00.000Z');
  });
  it('moves to the next day at midnight MSK', () => {
    expect(dayPeriod(new Date('2026-03-10T21:00:00Z'), 'Europe/Moscow').start.toISOString()).toBe('2026-03-10T21:00:00.000Z');
  });
  it('handles a DST day (New York spring forward is a 23-hour day)', () => {
    const p = dayPeriod(new Date('2026-03-08T12:00:00Z'), 'America/New_York');
    expect(p.resetsAt.getTime() - p.start.getTime()).toBe(23 * 3_600_000);
  });
});
