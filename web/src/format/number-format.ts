/** The two locales of the client: numbers, dates and texts follow them. */
export type Locale = 'ru' | 'en';

/** Short scale words per locale, from the largest: 6.26e12 RUB is `6,26 трлн ₽` / `6.26T RUB`. */
const SCALES: Record<Locale, readonly [number, string][]> = {
  ru: [
    [1e12, 'трлн'],
    [1e9, 'млрд'],
    [1e6, 'млн'],
    [1e3, 'тыс.'],
  ],
  en: [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ],
};

/** Russian readers know these by sign; anything else is shown by its code. */
const RU_SYMBOLS: Record<string, string> = { RUB: '₽', USD: '$', EUR: '€', CNY: '¥', GBP: '£' };

const formatters = new Map<string, Intl.NumberFormat>();
function numberFormat(locale: Locale, min: number, max: number): Intl.NumberFormat {
  const key = `${locale}:${min}:${max}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, { minimumFractionDigits: min, maximumFractionDigits: max });
    formatters.set(key, f);
  }
  return f;
}

/**
 * Intl separates groups with a no-break space (U+00A0) in Russian and uses U+202F in some versions;
 * one plain space keeps copied text and test assertions alike.
 */
const plainSpaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

/** A plain number in the locale's digits: `1 234,5` (ru) / `1,234.5` (en). */
export function formatNumber(value: number, locale: Locale, maxFractionDigits = 2, minFractionDigits = 0): string {
  return plainSpaces(numberFormat(locale, minFractionDigits, maxFractionDigits).format(value));
}

/** The currency after the amount: `₽` in Russian for the known signs, the ISO code otherwise (`RUB` in English). */
export function currencyMark(currency: string, locale: Locale): string {
  return locale === 'ru' ? (RU_SYMBOLS[currency] ?? currency) : currency;
}

/** An amount with its currency: `290,50 ₽` / `290.50 RUB`. Prices below 1 keep up to 6 digits. */
export function formatMoney(value: number | null | undefined, currency: string, locale: Locale): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const small = Math.abs(value) > 0 && Math.abs(value) < 1;
  return `${formatNumber(value, locale, small ? 6 : 2, small ? 2 : 2)} ${currencyMark(currency, locale)}`;
}

/** A large amount in short scale with two decimals: `6,26 трлн ₽` / `6.26T RUB`; below a thousand as is. */
export function formatCompactMoney(value: number | null | undefined, currency: string, locale: Locale): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const mark = currencyMark(currency, locale);
  const abs = Math.abs(value);
  for (const [size, word] of SCALES[locale]) {
    // Rounding first: 999 999 999 999 shows as 1 трлн, not 1 000 млрд.
    const scaled = Math.round((abs / size) * 100) / 100;
    if (scaled >= 1) {
      const n = formatNumber(Math.sign(value) * scaled, locale, 2, 2);
      return locale === 'ru' ? `${n} ${word} ${mark}` : `${n}${word} ${mark}`;
    }
  }
  return `${formatNumber(value, locale, 2, 0)} ${mark}`;
}

/** A percent change with its sign: `+0,27 %` / `+0.27%`; `—` when unknown. */
export function formatPercent(value: number | null | undefined, locale: Locale, signed = true): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const n = formatNumber(value, locale, 2, 2);
  const sign = signed && value > 0 ? '+' : '';
  return locale === 'ru' ? `${sign}${n} %` : `${sign}${n}%`;
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();
/**
 * One Intl.DateTimeFormat per locale and options, kept like the number formats: building one costs far more than
 * using it, and a portfolio page formats a day for each of its 100 deals (the browser's profile of that page had
 * the building as its costliest script function).
 */
function dateFormat(locale: Locale, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}:${JSON.stringify(options)}`;
  let f = dateFormats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    dateFormats.set(key, f);
  }
  return f;
}

/** Date and time in the reader's time zone: `22.11.2026, 18:24` / `11/22/2026, 6:24 PM`. */
export function formatDateTime(iso: string | null | undefined, locale: Locale, timeZone?: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return plainSpaces(dateFormat(locale, { dateStyle: 'short', timeStyle: 'short', ...(timeZone ? { timeZone } : {}) }).format(d));
}

/** A calendar day (`2026-11-22`, or the midnight a date column serializes to) as a date alone: `22.11.2026` / `11/22/2026`. */
export function formatDay(iso: string | null | undefined, locale: Locale): string {
  if (!iso) return '—';
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  if (Number.isNaN(d.getTime())) return '—';
  return dateFormat(locale, { dateStyle: 'short', timeZone: 'UTC' }).format(d);
}
