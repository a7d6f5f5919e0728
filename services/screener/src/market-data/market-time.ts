/** MOEX publishes every date and time in Moscow time, without an offset. */
export const MOEX_TZ = 'Europe/Moscow';

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(instant: Date, tz: string): WallClock {
  const parts = formatterFor(tz).formatToParts(instant);
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

/** Offset of `tz` from UTC at `instant`, in milliseconds (Moscow: +3 h). */
function offsetMs(instant: number, tz: string): number {
  const w = wallClock(new Date(instant), tz);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The calendar date (`YYYY-MM-DD`) in `tz` at `now`: "today" of the market. */
export function marketToday(tz: string, now: Date = new Date()): string {
  const w = wallClock(now, tz);
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}

/**
 * The instant of a wall-clock time in `tz`. `local` is `YYYY-MM-DD HH:MM:SS` (or with `T`); returns null
 * when it does not have that shape.
 */
export function zonedTimeToUtc(local: string, tz: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  // Two passes settle the offset around DST changes (Moscow has none since 2014, MARKET_TZ may).
  const first = asUtc - offsetMs(asUtc, tz);
  return new Date(asUtc - offsetMs(first, tz));
}

/** Adds whole calendar months to a `YYYY-MM-DD` date, clamping the day like PostgreSQL (Feb 29 + 12 months = Feb 28). */
export function addMonths(date: string, months: number): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) throw new Error(`not a YYYY-MM-DD date: ${date}`);
  const total = Number(m[1]) * 12 + (Number(m[2]) - 1) + months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${pad(year, 4)}-${pad(month)}-${pad(Math.min(Number(m[3]), lastDay))}`;
}
