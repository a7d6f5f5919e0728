import { zonedParts, zonedToUtc } from '../time/zoned-time.js';

/** When a job runs: every N minutes (aligned to the clock), or daily at a local time in a zone. */
export type Schedule = { everyMinutes: number } | { dailyAt: string; timeZone: string };

/** The next run strictly after `now`. */
export function nextRun(schedule: Schedule, now: Date): Date {
  if ('everyMinutes' in schedule) {
    const step = schedule.everyMinutes * 60_000;
    return new Date(Math.floor(now.getTime() / step) * step + step);
  }
  const m = /^(\d{2}):(\d{2})$/.exec(schedule.dailyAt);
  if (!m) throw new Error(`dailyAt must be HH:MM, got "${schedule.dailyAt}"`);
  const p = zonedParts(now, schedule.timeZone);
  const today = zonedToUtc({ year: p.year, month: p.month, day: p.day, hour: +m[1]!, minute: +m[2]! }, schedule.timeZone);
  if (today > now) return today;
  // Tomorrow's local date: step past midnight from noon today to stay clear of DST edges.
  const noon = zonedToUtc({ year: p.year, month: p.month, day: p.day, hour: 12 }, schedule.timeZone);
  const t = zonedParts(new Date(noon.getTime() + 24 * 3_600_000), schedule.timeZone);
  return zonedToUtc({ year: t.year, month: t.month, day: t.day, hour: +m[1]!, minute: +m[2]! }, schedule.timeZone);
}
