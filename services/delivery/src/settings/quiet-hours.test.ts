import { describe, expect, it } from 'vitest';
import { quietHoursEnd } from './quiet-hours.js';

const MSK = 'Europe/Moscow';

describe('quietHoursEnd', () => {
  it('is null without quiet hours or outside them', () => {
    expect(quietHoursEnd(new Date('2026-03-10T12:00:00Z'), null, MSK)).toBeNull();
    // 15:00 Moscow, hours 23:00-07:00.
    expect(quietHoursEnd(new Date('2026-03-10T12:00:00Z'), { start: '23:00', end: '07:00' }, MSK)).toBeNull();
    // 07:00 Moscow exactly: the hours are over.
    expect(quietHoursEnd(new Date('2026-03-10T04:00:00Z'), { start: '23:00', end: '07:00' }, MSK)).toBeNull();
  });

  it('overnight hours entered before midnight end the next morning, after midnight the same morning', () => {
    // 23:30 Moscow on the 10th → 07:00 on the 11th (04:00Z).
    expect(quietHoursEnd(new Date('2026-03-10T20:30:00Z'), { start: '23:00', end: '07:00' }, MSK)?.toISOString()).toBe('2026-03-11T04:00:00.000Z');
    // 02:00 Moscow on the 11th → 07:00 the same day.
    expect(quietHoursEnd(new Date('2026-03-10T23:00:00Z'), { start: '23:00', end: '07:00' }, MSK)?.toISOString()).toBe('2026-03-11T04:00:00.000Z');
  });

  it('daytime hours end the same day, in the user\'s zone', () => {
    // 13:15 in New York (EDT, UTC-4) with hours 12:00-14:30 → 18:30Z.
    expect(quietHoursEnd(new Date('2026-07-01T17:15:00Z'), { start: '12:00', end: '14:30' }, 'America/New_York')?.toISOString()).toBe('2026-07-01T18:30:00.000Z');
  });

  it('an end across a month boundary and across a DST change is the wall-clock end', () => {
    // 00:30 on 29 Mar 2026 in Berlin (CET, the night the clocks go forward): hours 23:00-08:00 end at 08:00 CEST, 06:00Z.
    expect(quietHoursEnd(new Date('2026-03-28T23:30:00Z'), { start: '23:00', end: '08:00' }, 'Europe/Berlin')?.toISOString()).toBe('2026-03-29T06:00:00.000Z');
    expect(quietHoursEnd(new Date('2026-01-31T21:00:00Z'), { start: '23:00', end: '07:00' }, MSK)?.toISOString()).toBe('2026-02-01T04:00:00.000Z');
  });
});
