// Building an Intl.DateTimeFormat is costly; keep one per zone.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Wall-clock parts of an instant in a time zone. */
export function zonedParts(at: Date, timeZone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = formatterFor(timeZone).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

const isoDate = (p: { year: number; month: number; day: number }) => `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;

/** The calendar date (`YYYY-MM-DD`) of an instant in a time zone. */
export function dateInZone(at: Date, timeZone: string): string {
  return isoDate(zonedParts(at, timeZone));
}

/**
 * The instant at which the wall clock of `timeZone` shows the given local date and time.
 * (Two passes settle the zone offset, including around DST changes.)
 */
export function zonedToUtc(local: { year: number; month: number; day: number; hour?: number; minute?: number; second?: number }, timeZone: string): Date {
  const wanted = Date.UTC(local.year, local.month - 1, local.day, local.hour ?? 0, local.minute ?? 0, local.second ?? 0);
  let guess = wanted;
  for (let i = 0; i < 2; i++) {
    const p = zonedParts(new Date(guess), timeZone);
    const shown = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
    guess += wanted - shown;
  }
  return new Date(guess);
}

/** The start of a day and of the next in a zone, by the last `startOfDayInZone` there. */
const dayOf = new Map<string, { from: number; to: number }>();

/**
 * Start of the day (00:00 local) that contains `at`, in `timeZone`. The last day asked for in each zone is kept:
 * evaluations ask once per notification (a million in a sweep) and Intl's conversions cost ~10 µs each.
 */
export function startOfDayInZone(at: Date, timeZone: string): Date {
  const t = at.getTime();
  const known = dayOf.get(timeZone);
  if (known && t >= known.from && t < known.to) return new Date(known.from);
  const p = zonedParts(at, timeZone);
  const from = zonedToUtc({ year: p.year, month: p.month, day: p.day }, timeZone).getTime();
  const next = new Date(Date.UTC(p.year, p.month - 1, p.day + 1));
  const to = zonedToUtc({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() }, timeZone).getTime();
  // Kept only when [from, to) is exactly this day: where midnight repeats (clocks going back from 01:00 to
  // 00:00, as in Asia/Gaza in 2017), the next day's 00:00 settles on its second occurrence, and the hour
  // before it belongs to the next day already.
  const day = isoDate(p);
  if (from <= t && dateInZone(new Date(to - 1), timeZone) === day && dateInZone(new Date(to), timeZone) !== day) dayOf.set(timeZone, { from, to });
  return new Date(from);
}

/** Parses a zone-less `YYYY-MM-DD HH:MM:SS` (as MOEX ISS and CloudPayments send) in the given zone. */
export function parseZonedDateTime(text: string, timeZone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(text.trim());
  if (!m) return null;
  return zonedToUtc(
    { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +(m[4] ?? 0), minute: +(m[5] ?? 0), second: +(m[6] ?? 0) },
    timeZone,
  );
}
