/**
 * How a Russian reader expects the API's numbers written, from the platform's own `Intl` ('ru-RU') rather than the web
 * client's formatter: a browser test that compares the page with these catches a page that formats in English or
 * drops a sign, which a test using the page's own formatter could not. Spaces are compared as one plain space
 * (`Intl` groups with U+00A0 or U+202F by version; the page writes a plain space).
 */

/** Any run of white space (no-break and narrow no-break ones too) as one plain space, trimmed. */
export const oneSpace = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** `1 234,5`: grouped by spaces, a decimal comma, `max` fraction digits at most and `min` at least. */
export function ruNumber(v: number, max = 2, min = 0): string {
  return oneSpace(new Intl.NumberFormat('ru-RU', { minimumFractionDigits: min, maximumFractionDigits: max }).format(v));
}

/** Currency signs a Russian reader knows; other currencies by their code. */
const SIGNS: Record<string, string> = { RUB: '₽', USD: '$', EUR: '€', CNY: '¥', GBP: '£' };

/** `1 234,50 ₽`: two decimals, six at most below 1; `signed` puts a plus before a gain. `—` when unknown. */
export function ruMoney(v: number | null, currency = 'RUB', signed = false): string {
  if (v === null) return '—';
  const small = v !== 0 && Math.abs(v) < 1;
  return `${signed && v > 0 ? '+' : ''}${ruNumber(v, small ? 6 : 2, 2)} ${SIGNS[currency] ?? currency}`;
}

/** `+1,50 %`: two decimals and a space before the sign of percent; a plus unless `signed` is false. `—` when unknown. */
export function ruPercent(v: number | null, signed = true): string {
  if (v === null) return '—';
  return `${signed && v > 0 ? '+' : ''}${ruNumber(v, 2, 2)} %`;
}

/** `1 акция`, `2 акции`, `5 акций`: a count of shares by the Russian plural rules (CLDR). */
export function ruShares(n: number): string {
  const word = { one: 'акция', few: 'акции', many: 'акций' }[new Intl.PluralRules('ru').select(n) as 'one' | 'few' | 'many'] ?? 'акции';
  return `${n} ${word}`;
}

/** `28.11.2026, 20:30` in `timeZone`: a date and time as the page shows them in Russian. */
export function ruDateTime(iso: string, timeZone: string): string {
  return oneSpace(new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'short', timeZone }).format(new Date(iso)));
}

/** `15.03.2024`: a calendar day (`2024-03-15`) as the page shows it in Russian. */
export function ruDay(day: string): string {
  return new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeZone: 'UTC' }).format(new Date(`${day.slice(0, 10)}T00:00:00Z`));
}

/** The country's Russian name by its ISO code (`RU` → `Россия`), as `Intl` knows it. */
export function ruCountry(code: string): string {
  return new Intl.DisplayNames(['ru'], { type: 'region' }).of(code) ?? code;
}

/** Whether `s` has a word in Latin letters: an English text left in the Russian interface (tickers and codes aside). */
export function latinWords(s: string, allowed: readonly string[] = []): string[] {
  return (s.match(/[A-Za-z]{2,}/g) ?? []).filter((w) => !allowed.includes(w) && !/^[A-Z0-9]+$/.test(w));
}
