import { describe, expect, it } from 'vitest';
import { nextRun } from './schedule.js';

describe('nextRun', () => {
  it('aligns interval schedules to the clock', () => {
    expect(nextRun({ everyMinutes: 15 }, new Date('2026-11-21T10:07:30Z')).toISOString()).toBe('2026-11-21T10:15:00.000Z');
    expect(nextRun({ everyMinutes: 1 }, new Date('2026-11-21T10:07:00Z')).toISOString()).toBe('2026-11-21T10:08:00.000Z');
  });

  it('runs a daily job at the local time of its zone, today or tomorrow', () => {
    const s = { dailyAt: '01:45', timeZone: 'Europe/Moscow' };
    // 22:00 UTC is 01:00 Moscow: today's 01:45 Moscow (22:45 UTC) is still ahead.
    expect(nextRun(s, new Date('2026-11-21T22:00:00Z')).toISOString()).toBe('2026-11-21T22:45:00.000Z');
    // 23:00 UTC is 02:00 Moscow: next is tomorrow 01:45 Moscow.
    expect(nextRun(s, new Date('2026-11-21T23:00:00Z')).toISOString()).toBe('2026-11-22T22:45:00.000Z');
  });
});
