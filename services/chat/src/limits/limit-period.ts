import { startOfDayInZone } from '@invest/platform/time/zoned-time';

// The day last asked for, per zone: a send asks several times, and working a day out costs Intl formatting
// (a twentieth of the chat service's CPU at 100 concurrent answers).
const lastDay = new Map<string, { start: Date; resetsAt: Date }>();

/** The `MARKET_TZ` day containing `now`: its start and when the next one starts (the reset). */
export function dayPeriod(now: Date, timeZone: string): { start: Date; resetsAt: Date } {
  const last = lastDay.get(timeZone);
  if (last && last.start.getTime() <= now.getTime() && now.getTime() < last.resetsAt.getTime()) return { ...last };
  const day = workOutDay(now, timeZone);
  lastDay.set(timeZone, day);
  return { ...day };
}

function workOutDay(now: Date, timeZone: string): { start: Date; resetsAt: Date } {
  const start = startOfDayInZone(now, timeZone);
  // 36 h after the start is always inside the next local day, whatever DST does.
  const resetsAt = startOfDayInZone(new Date(start.getTime() + 36 * 3_600_000), timeZone);
  return { start, resetsAt };
}
