import { LOCALES, type Locale } from '@invest/contracts';

/**
 * The locale a client reads (fired notifications, error messages): the first supported language of `Accept-Language` by
 * its q-value (ties keep header order); `fallback` (Russian unless told) when none is supported, the header is
 * absent or says `*`. Error messages fall back to English, the API's own wording (docs/decisions/0035-localized-errors.md).
 */
export function localeFromAcceptLanguage(header: unknown, fallback: Locale = 'ru'): Locale {
  if (typeof header !== 'string' || !header.trim()) return fallback;
  const ranges = header
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { lang: tag.trim().toLowerCase().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.q > 0 && Number.isFinite(r.q))
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) if ((LOCALES as readonly string[]).includes(r.lang)) return r.lang as Locale;
  return fallback;
}
