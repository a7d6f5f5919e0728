import { zonedParts, zonedToUtc } from '@invest/platform/time/zoned-time';

export interface QuietHours {
  /** `HH:MM` in the user's time zone; `start` after `end` spans midnight. */
  start: string;
  end: string;
}

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * When the quiet hours holding `at` end, or null when `at` is outside them (or the user has none). The end is the
 * next `end` on the user's wall clock; on a day the clocks skip it (a DST jump), the instant the zone maps it to.
 */
export function quietHoursEnd(at: Date, quiet: QuietHours | null, timeZone: string): Date | null {
  if (!quiet) return null;
  const p = zonedParts(at, timeZone);
  const now = p.hour * 60 + p.minute;
  const start = minutesOf(quiet.start);
  const end = minutesOf(quiet.end);
  const inside = start < end ? now >= start && now < end : now >= start || now < end;
  if (!inside) return null;
  // Overnight hours entered before midnight end tomorrow; any other end is today.
  const day = start > end && now >= start ? p.day + 1 : p.day;
  const until = zonedToUtc({ year: p.year, month: p.month, day, hour: Math.floor(end / 60), minute: end % 60 }, timeZone);
  return until.getTime() > at.getTime() ? until : new Date(at.getTime() + 60_000);
}

/** Whether `at` falls in the quiet hours. */
export function inQuietHours(at: Date, quiet: QuietHours | null, timeZone: string): boolean {
  return quietHoursEnd(at, quiet, timeZone) !== null;
}
