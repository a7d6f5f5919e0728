/**
 * Number fields read by the UI locale (number-input.ts) against what the API's decimal schema
 * (contracts/src/common/decimal.ts) accepts, and a field's text kept when the UI language changes.
 */
import { describe, expect, it } from 'vitest';
import { decimalSchema } from '../../../contracts/src/common/decimal';
import { decimalInputText, parseDecimalInput, relocaleDecimalText } from './number-input';

const text = (typed: string, locale: 'ru' | 'en') => {
  const r = parseDecimalInput(typed, locale);
  return r.ok ? r.text : `error:${r.error}`;
};

describe('input that would be read 1000 times too large', () => {
  it('en: a "thousands group" after a leading 0 ("0,500", "0,001") is refused, not read as 500 / 1', () => {
    // "0,500" is 0.5 written with a decimal comma; no one groups thousands after a leading zero.
    for (const typed of ['0,500', '0,001', '00,250']) expect(text(typed, 'en'), typed).toBe('error:grouping');
    for (const typed of ['0 500', '00 250']) expect(text(typed, 'ru'), typed).toBe('error:grouping');
  });

  it('a price the form filled in in Russian ("123,456") is rewritten, not read as 123456, when the UI switches to English', () => {
    const filled = decimalInputText(123.456, 'ru');
    expect(filled).toBe('123,456');
    expect(relocaleDecimalText(filled, 'ru', 'en')).toBe('123.456');
    expect(text(relocaleDecimalText(filled, 'ru', 'en'), 'en')).toBe('123.456');
    expect(relocaleDecimalText('1,234.5', 'en', 'ru')).toBe('1234,5');
    // What does not parse stays as typed (its message says why on submit); the same language changes nothing.
    expect(relocaleDecimalText('12a', 'ru', 'en')).toBe('12a');
    expect(relocaleDecimalText('1 000,5', 'ru', 'ru')).toBe('1 000,5');
  });
});

describe('input the API reads as typed', () => {
  const schema = decimalSchema('value', 'any');
  const accepted: [string, 'ru' | 'en', string][] = [
    ['  007.50 ', 'en', '007.50'],
    ['.5', 'ru', '0.5'],
    [',5', 'ru', '0.5'],
    ['5.', 'en', '5'],
    ['5,', 'ru', '5'],
    ['-1,234.5', 'en', '-1234.5'],
    ['\u22121\u2009234,5', 'ru', '-1234.5'],
    ['\u00a01\u202f000\u00a0', 'ru', '1000'],
    ['0.123456789', 'en', '0.123456789'],
    ['1000000000000000.5', 'en', '1000000000000000.5'],
    ['0', 'en', '0'],
    ['-0', 'ru', '-0'],
  ];
  it('accepted inputs give plain decimal text that the API schema parses (or refuses only for its own limits)', () => {
    for (const [typed, locale, expected] of accepted) {
      expect(text(typed, locale), typed).toBe(expected);
      const r = schema.safeParse(expected);
      // Only the API's limits (places, magnitude) refuse; never "must be a number".
      if (!r.success) expect(r.error.issues[0]?.message, typed).not.toContain('must be a number');
    }
    expect(schema.safeParse('0.123456789').success).toBe(false);
    expect(schema.safeParse('1000000000000000.5').success).toBe(false);
    expect(decimalSchema('commission', 'nonnegative').safeParse('-0').success).toBe(true);
  });

  it('refuses exponents, unicode digits, inner spaces in en, stray signs, bad groups', () => {
    for (const typed of ['1e3', '１２', '٣', '1\u00a0000', '--5', '+-5', '- 5', '5-', '1,00', '1,0000', ',5', '1.000,5']) expect(text(typed, 'en'), typed).toMatch(/^error:/);
    for (const typed of ['1e3', '１２', '1  000', '1 00', '1.2.3', '1,2,3', '1 000,5 0', '1.000,5', '1\u2007000']) expect(text(typed, 'ru'), typed).toMatch(/^error:/);
  });
});
