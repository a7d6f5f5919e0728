import { describe, expect, it } from 'vitest';
import { dateInZone, parseZonedDateTime, startOfDayInZone, zonedToUtc } from './zoned-time.js';

describe('zoned time', () => {
  it('converts Moscow wall-clock time (UTC+3, no DST) to UTC', () => {
    expect(parseZonedDateTime('2024-02-15 18:09:06', 'Europe/Moscow')?.toISOString()).toBe('2024-02-15T15:09:06.000Z');
  });

  it('handles a zone with DST on both sides of the change', () => {
    // Berlin: CET (UTC+1) in January, CEST (UTC+2) in July.
    expect(zonedToUtc({ year: 2025, month: 1, day: 10, hour: 1, minute: 45 }, 'Europe/Berlin').toISOString()).toBe('2025-01-10T00:45:00.000Z');
    expect(zonedToUtc({ year: 2025, month: 7, day: 10, hour: 1, minute: 45 }, 'Europe/Berlin').toISOString()).toBe('2025-07-09T23:45:00.000Z');
  });

  it('gives the local calendar date and start of day', () => {
    const lateUtc = new Date('2026-11-21T22:30:00Z'); // 01:30 on the 22nd in Moscow
    expect(dateInZone(lateUtc, 'Europe/Moscow')).toBe('2026-11-22');
    expect(dateInZone(lateUtc, 'UTC')).toBe('2026-11-21');
    expect(startOfDayInZone(lateUtc, 'Europe/Moscow').toISOString()).toBe('2026-11-21T21:00:00.000Z');
  });

  it('gives the same start of day from its kept day as computed afresh, across days and DST changes', () => {
    // Afresh: the day's parts, then their 00:00 (what startOfDayInZone computes without its kept day).
    const fresh = (at: Date, zone: string) => {
      const [y, m, d] = dateInZone(at, zone).split('-').map(Number);
      return zonedToUtc({ year: y!, month: m!, day: d! }, zone).toISOString();
    };
    for (const zone of ['Europe/Moscow', 'Europe/Berlin', 'America/Santiago', 'UTC']) {
      // Every 37 minutes over ten days around Berlin's and Santiago's clock changes, forwards then backwards.
      const instants = Array.from({ length: 400 }, (_, i) => new Date(Date.UTC(2025, 2, 27) + i * 37 * 60_000));
      for (const at of [...instants, ...instants.reverse()]) expect(startOfDayInZone(at, zone).toISOString(), `${zone} ${at.toISOString()}`).toBe(fresh(at, zone));
      const april = Array.from({ length: 400 }, (_, i) => new Date(Date.UTC(2025, 3, 3) + i * 37 * 60_000));
      for (const at of april) expect(startOfDayInZone(at, zone).toISOString(), `${zone} ${at.toISOString()}`).toBe(fresh(at, zone));
    }
  });

  it('keeps no day whose next midnight repeats: the hour before the second midnight is the next day already', () => {
    // Asia/Gaza, 2017-10-28: clocks went back from 01:00 (+03) to 00:00 (+02).
    const zone = 'Asia/Gaza';
    startOfDayInZone(new Date('2017-10-27T12:00:00Z'), zone);
    const at = new Date('2017-10-27T21:30:00Z'); // 00:30 (+03) on the 28th
    expect(dateInZone(at, zone)).toBe('2017-10-28');
    const [y, m, d] = dateInZone(at, zone).split('-').map(Number);
    expect(startOfDayInZone(at, zone).toISOString()).toBe(zonedToUtc({ year: y!, month: m!, day: d! }, zone).toISOString());
  });

  it('rejects text that is not a date', () => {
    expect(parseZonedDateTime('15.02.2024', 'Europe/Moscow')).toBeNull();
  });
});
