const SYMBOLS: Record<string, string> = {
  RUB: '₽',
  SUR: '₽',
  USD: '$',
  EUR: '€',
  CNY: '¥',
  GBP: '£',
  CHF: '₣',
  JPY: '¥',
  HKD: 'HK$',
  KZT: '₸',
  TRY: '₺',
  AED: 'د.إ',
  USDT: '₮',
};

/** The sign of a currency (`RUB` -> `₽`), the code itself when it has none, null when unknown. */
export function currencySymbol(code: string | null): string | null {
  if (!code) return null;
  return SYMBOLS[code.toUpperCase()] ?? code.toUpperCase();
}
