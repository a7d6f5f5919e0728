export interface CountryRef {
  code: string;
  name: string;
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** User-assigned ISO 3166-1 codes (XS is "international" in ISINs) and reserved groupings: not countries. */
const NOT_COUNTRIES = /^(AA|Q[M-Z]|X[A-Z]|ZZ|EU|EZ|UN)$/;

/** English name of an ISO 3166-1 alpha-2 code (`RU` → Russia), or null for codes that are not countries. */
export function countryName(code: string): string | null {
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.test(code)) return null;
  const name = regionNames.of(code);
  return name && name !== code ? name : null;
}

/**
 * The country of an ISIN: its first two letters are the issuing country's ISO 3166-1 code. For depositary
 * receipts that is the country of the receipt programme (often US), not of the underlying issuer. Codes that
 * are not countries (`XS` international, `EU`) give null.
 */
export function countryFromIsin(isin: string | null | undefined): CountryRef | null {
  if (!isin || !/^[A-Z]{2}[A-Z0-9]{9}\d$/.test(isin)) return null;
  const code = isin.slice(0, 2);
  const name = countryName(code);
  return name ? { code, name } : null;
}
