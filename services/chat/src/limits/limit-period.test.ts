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
  it('answers each instant by its own day, whatever day was asked before (the last day is kept)', () => {
    const tz = 'Europe/Moscow';
    const today = dayPeriod(new Date('2026-03-10T12:00:00Z'), tz);
    expect(dayPeriod(new Date('2026-03-10T20:59:59.999Z'), tz)).toEqual(today);
    expect(dayPeriod(new Date('2026-03-09T20:59:59.999Z'), tz).resetsAt).toEqual(today.start);
    expect(dayPeriod(new Date('2026-03-10T21:00:00Z'), tz).start).toEqual(today.resetsAt);
    expect(dayPeriod(new Date('2026-03-10T12:00:00Z'), 'America/New_York').start.toISOString()).toBe('2026-03-10T04:00:00.000Z');
    expect(dayPeriod(new Date('2026-03-10T12:00:00Z'), tz)).toEqual(today);
  });
});
