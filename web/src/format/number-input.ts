import type { Locale } from './number-format';

/** Why a typed number was refused; decimalInputMessage says it in the reader's words. */
export type DecimalInputError = 'empty' | 'invalid' | 'grouping' | 'separators';

export type DecimalInput = { ok: true; text: string } | { ok: false; error: DecimalInputError };

/** Group separators of Russian text: a space, a no-break space (U+00A0, U+202F) or a thin space (U+2009). */
const RU_GROUP = /[ \u00a0\u202f\u2009]/;

/**
 * The decimal text (`-1234.5`: an optional `-`, digits, a point) of what a person typed in a number field, read by
 * the UI locale, or why it is not one. It never goes through a double, so every digit typed reaches the API (which
 * takes decimal strings and applies its own limits: places, magnitude, sign).
 *
 * - en: `.` is the decimal point; `,` only separates thousands, and only well formed (`1,000`, `1,234,567.5`):
 *   `1,5` or `1,00` is refused, not guessed.
 * - ru: `,` is the decimal separator (`.` is read as one too: the keypad and copied prices); spaces, no-break and
 *   thin spaces separate thousands, well formed (`1 234 567,5`); both `,` and `.` in one number is refused.
 */
export function parseDecimalInput(typed: string, locale: Locale): DecimalInput {
  let s = typed.trim().replace(/^\u2212/, '-');
  if (s === '') return { ok: false, error: 'empty' };
  let sign = '';
  if (s[0] === '-' || s[0] === '+') {
    sign = s[0] === '-' ? '-' : '';
    s = s.slice(1);
  }
  let int: string;
  let fraction: string | undefined;
  if (locale === 'en') {
    if (!/^[\d.,]+$/.test(s)) return { ok: false, error: 'invalid' };
    const parts = s.split('.');
    if (parts.length > 2) return { ok: false, error: 'invalid' };
    [int = '', fraction] = parts;
    if (fraction?.includes(',')) return { ok: false, error: 'grouping' };
    if (int.includes(',')) {
      // The first group starts with 1-9: "0,500" is not five hundred (nor is "0 500" below).
      if (!/^[1-9]\d{0,2}(,\d{3})+$/.test(int)) return { ok: false, error: 'grouping' };
      int = int.replace(/,/g, '');
    }
  } else {
    if (!/^[\d., \u00a0\u202f\u2009]+$/.test(s)) return { ok: false, error: 'invalid' };
    if (s.includes(',') && s.includes('.')) return { ok: false, error: 'separators' };
    const parts = s.split(/[.,]/);
    if (parts.length > 2) return { ok: false, error: 'invalid' };
    [int = '', fraction] = parts;
    if (fraction !== undefined && RU_GROUP.test(fraction)) return { ok: false, error: 'grouping' };
    if (RU_GROUP.test(int)) {
      if (!/^[1-9]\d{0,2}([ \u00a0\u202f\u2009]\d{3})+$/.test(int)) return { ok: false, error: 'grouping' };
      int = int.replace(/[ \u00a0\u202f\u2009]/g, '');
    }
  }
  if (!/^\d*$/.test(int) || (fraction !== undefined && !/^\d*$/.test(fraction))) return { ok: false, error: 'invalid' };
  if (int === '' && !fraction) return { ok: false, error: 'invalid' };
  return { ok: true, text: `${sign}${int || '0'}${fraction ? `.${fraction}` : ''}` };
}

const MESSAGES: Record<Locale, Record<DecimalInputError, string>> = {
  ru: {
    empty: 'Введите число.',
    invalid: 'Введите число, например 1234,56 или 1 234,56.',
    grouping: 'Разряды отделяются пробелом по три цифры (1 234 567), дробная часть — запятой (1 234,5).',
    separators: 'В числе и запятая, и точка: дробную часть отделите запятой, разряды — пробелом (1 234,5).',
  },
  en: {
    empty: 'Enter a number.',
    invalid: 'Enter a number, e.g. 1234.56 or 1,234.56.',
    grouping: 'A comma separates thousands (1,000 or 1,234,567.5); use a point for decimals (1.5).',
    separators: 'Use a point for decimals and commas only between thousands (1,234.5).',
  },
};

export function decimalInputMessage(error: DecimalInputError, locale: Locale): string {
  return MESSAGES[locale][error];
}

/**
 * A field's text typed under `from`, rewritten for `to` (the UI language changed while the form was open) with its
 * value kept: `123,456` in Russian is `123.456` in English, not a hundred and twenty-three thousand. Text that does
 * not parse under `from` is left as typed (the field's message says why on submit).
 */
export function relocaleDecimalText(typed: string, from: Locale, to: Locale): string {
  if (from === to) return typed;
  const r = parseDecimalInput(typed, from);
  if (!r.ok) return typed;
  return to === 'ru' ? r.text.replace('.', ',') : r.text;
}

/** A number as a field's starting text in the locale, without grouping (`290,5` / `290.5`), at most 8 places. */
export function decimalInputText(value: number, locale: Locale): string {
  return new Intl.NumberFormat(locale, { useGrouping: false, maximumFractionDigits: 8 }).format(value).replace(/\u2212/, '-');
}

/**
 * Decimal text as the API's money fields take it. The OpenAPI document types them as numbers (the answers are JSON
 * numbers) though they accept decimal strings, which keep every digit; this is the one place that says so.
 */
export const apiDecimal = (text: string): number => text as unknown as number;

/**
 * Several number fields at once (name → typed text): their decimal texts, or each refused field's message (the
 * form shows it beside the field and sends nothing).
 */
export function parseDecimalFields<K extends string>(fields: Record<K, string>, locale: Locale): { ok: true; texts: Record<K, string> } | { ok: false; errors: Partial<Record<K, string[]>> } {
  const texts = {} as Record<K, string>;
  const errors: Partial<Record<K, string[]>> = {};
  let ok = true;
  for (const name of Object.keys(fields) as K[]) {
    const r = parseDecimalInput(fields[name], locale);
    if (r.ok) texts[name] = r.text;
    else {
      errors[name] = [decimalInputMessage(r.error, locale)];
      ok = false;
    }
  }
  return ok ? { ok, texts } : { ok, errors };
}
