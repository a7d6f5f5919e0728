/**
 * Market-time helpers of the screener. The zone arithmetic is the platform's (`@invest/platform`
 * `time/zoned-time`); this module adds the strict parsing MOEX strings need and calendar-date maths.
 */
import { dateInZone, zonedToUtc } from '@invest/platform/time/zoned-time';

/** MOEX publishes every date and time in Moscow time, without an offset. */
export const MOEX_TZ = 'Europe/Moscow';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The calendar date (`YYYY-MM-DD`) in `tz` at `now`: "today" of the market. */
export function marketToday(tz: string, now: Date = new Date()): string {
  return dateInZone(now, tz);
}

/**
 * The instant of a wall-clock time in `tz`. `local` is `YYYY-MM-DD HH:MM[:SS]` (or with `T`); returns null
 * when it does not have that shape or names an impossible date or time.
 */
export function zonedTimeToUtc(local: string, tz: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local.trim());
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  // The zone's offset is looked up once per local minute (zone transitions fall on whole minutes): an ISS
  // response has thousands of rows whose times share a few minutes, and each look-up costs two Intl calls.
  const key = `${tz}|${year}-${month}-${day} ${hour}:${minute}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = zonedToUtc({ year, month, day, hour, minute }, tz).getTime() - Date.UTC(year, month - 1, day, hour, minute);
    if (offsets.size >= 20_000) offsets.clear();
    offsets.set(key, offset);
  }
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second) + offset);
}

const offsets = new Map<string, number>();

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function parseDate(date: string): [number, number, number] {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new Error(`not a YYYY-MM-DD date: ${date}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** Adds whole calendar months to a `YYYY-MM-DD` date, clamping the day like PostgreSQL (Feb 29 + 12 months = Feb 28). */
export function addMonths(date: string, months: number): string {
  const [y, mo, d] = parseDate(date);
  const total = y * 12 + (mo - 1) + months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  return `${pad(year, 4)}-${pad(month)}-${pad(Math.min(d, daysInMonth(year, month)))}`;
}

/** Adds (or with a negative `days`, subtracts) calendar days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const [y, mo, d] = parseDate(date);
  return new Date(Date.UTC(y, mo - 1, d + days)).toISOString().slice(0, 10);
}
