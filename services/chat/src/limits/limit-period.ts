import { startOfDayInZone } from '@invest/platform';

/** The `MARKET_TZ` day containing `now`: its start and when the next one starts (the reset). */
export function dayPeriod(now: Date, timeZone: string): { start: Date; resetsAt: Date } {
  const start = startOfDayInZone(now, timeZone);
  // 36 h after the start is always inside the next local day, whatever DST does.
  const resetsAt = startOfDayInZone(new Date(start.getTime() + 36 * 3_600_000), timeZone);
  return { start, resetsAt };
}
