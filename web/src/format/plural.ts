import type { Locale } from './number-format';

/** The words of a count in each plural category a locale uses; `other` is required, as CLDR always has it. */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

const rules = new Map<Locale, Intl.PluralRules>();

/**
 * The word for `n` by the locale's plural rules (CLDR, through `Intl.PluralRules`): Russian has `one` (1, 21, 101),
 * `few` (2-4, 22-24), `many` (0, 5-20, 25) and `other` (fractions); English `one` and `other`.
 */
export function pluralForm(locale: Locale, n: number, forms: PluralForms): string {
  let r = rules.get(locale);
  if (!r) rules.set(locale, (r = new Intl.PluralRules(locale)));
  return forms[r.select(n)] ?? forms.other;
}

/** Shares: "1 акция", "2 акции", "5 акций" / "1 share", "2 shares". */
export const SHARE_FORMS: Record<Locale, PluralForms> = {
  ru: { one: 'акция', few: 'акции', many: 'акций', other: 'акции' },
  en: { one: 'share', other: 'shares' },
};

/** `n` and its word: "21 акция". The number as given (a count), in the locale's digits. */
export function countOf(locale: Locale, n: number, forms: Record<Locale, PluralForms>): string {
  return `${new Intl.NumberFormat(locale).format(n).replace(/[\u00a0\u202f]/g, ' ')} ${pluralForm(locale, n, forms[locale])}`;
}
