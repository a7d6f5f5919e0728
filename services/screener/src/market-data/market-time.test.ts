import { describe, expect, it } from 'vitest';
import { addDays, addMonths, marketToday, zonedTimeToUtc } from './market-time.js';

describe('marketToday', () => {
  it('is the calendar date in the market time zone', () => {
    // Moscow is UTC+3: 20:59 UTC is still the same day, 21:00 UTC is the next.
    expect(marketToday('Europe/Moscow', new Date('2024-02-15T20:59:59Z'))).toBe('2024-02-15');
    expect(marketToday('Europe/Moscow', new Date('2024-02-15T21:00:00Z'))).toBe('2024-02-16');
    expect(marketToday('America/New_York', new Date('2024-02-16T03:00:00Z'))).toBe('2024-02-15');
  });
});

describe('zonedTimeToUtc', () => {
  it('converts wall-clock time, DST included', () => {
    expect(zonedTimeToUtc('2024-02-15 18:09:06', 'Europe/Moscow')?.toISOString()).toBe('2024-02-15T15:09:06.000Z');
    expect(zonedTimeToUtc('2024-07-01 12:00:00', 'Europe/Berlin')?.toISOString()).toBe('2024-07-01T10:00:00.000Z');
    expect(zonedTimeToUtc('2024-01-01 12:00:00', 'Europe/Berlin')?.toISOString()).toBe('2024-01-01T11:00:00.000Z');
  });
  it('rejects other shapes', () => {
    expect(zonedTimeToUtc('17:54:06', 'Europe/Moscow')).toBeNull();
    expect(zonedTimeToUtc('2024-13-01 00:00:00', 'Europe/Moscow')).toBeNull();
  });
});

describe('addMonths', () => {
  it('clamps the day to the end of the month, like PostgreSQL', () => {
    expect(addMonths('2024-02-29', 12)).toBe('2025-02-28');
    expect(addMonths('2023-01-31', 1)).toBe('2023-02-28');
    expect(addMonths('2024-12-15', 12)).toBe('2025-12-15');
    expect(addMonths('2024-11-30', 3)).toBe('2025-02-28');
  });
});

describe('addDays', () => {
  it('crosses month, year and leap-day boundaries', () => {
    expect(addDays('2024-02-15', -7)).toBe('2024-02-08');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2023-12-31', 1)).toBe('2024-01-01');
  });
});

describe('zonedTimeToUtc strictness', () => {
  it('rejects days that do not exist', () => {
    expect(zonedTimeToUtc('2023-02-29 10:00:00', 'Europe/Moscow')).toBeNull();
    expect(zonedTimeToUtc('2024-02-29 10:00', 'Europe/Moscow')?.toISOString()).toBe('2024-02-29T07:00:00.000Z');
  });
});

describe('zonedTimeToUtc across a DST change (offsets cached per minute)', () => {
  it('gives each minute its own offset', () => {
    // Berlin, 2024-03-31: 02:00 CET jumps to 03:00 CEST.
    expect(zonedTimeToUtc('2024-03-31 01:59:59', 'Europe/Berlin')?.toISOString()).toBe('2024-03-31T00:59:59.000Z');
    expect(zonedTimeToUtc('2024-03-31 03:00:01', 'Europe/Berlin')?.toISOString()).toBe('2024-03-31T01:00:01.000Z');
    expect(zonedTimeToUtc('2024-03-31 01:59:30', 'Europe/Berlin')?.toISOString()).toBe('2024-03-31T00:59:30.000Z');
    expect(zonedTimeToUtc('2024-10-27 12:00:00', 'Europe/Berlin')?.toISOString()).toBe('2024-10-27T11:00:00.000Z');
  });
});
