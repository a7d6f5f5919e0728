import { describe, expect, it } from 'vitest';
import { decimalInputMessage, decimalInputText, parseDecimalFields, parseDecimalInput } from './number-input';

const text = (typed: string, locale: 'ru' | 'en') => {
  const r = parseDecimalInput(typed, locale);
  return r.ok ? r.text : `error:${r.error}`;
};

describe('number fields keep every digit typed', () => {
  it('gives decimal text, never a double (18 significant digits, a value next to 1e15)', () => {
    expect(text('1234567890.12345678', 'en')).toBe('1234567890.12345678');
    expect(text('999999999999999.99', 'en')).toBe('999999999999999.99');
    expect(text('1 234 567 890,12345678', 'ru')).toBe('1234567890.12345678');
  });

  it('normalises signs, spaces around and a missing integer part', () => {
    expect(text(' -.5 ', 'en')).toBe('-0.5');
    expect(text('+5.', 'en')).toBe('5');
    expect(text('\u22121,5', 'ru')).toBe('-1.5');
  });
});

describe('English: "," separates thousands, well formed only', () => {
  it('reads grouped numbers', () => {
    expect(text('1,000', 'en')).toBe('1000');
    expect(text('1,234,567.5', 'en')).toBe('1234567.5');
  });

  it('refuses a comma that is not a thousands separator instead of guessing', () => {
    for (const typed of ['1,5', '1,00', '1,0000', '12,34,567', ',5', '1.000,5', '1,234.5,6']) expect(text(typed, 'en'), typed).toBe('error:grouping');
  });

  it('refuses what is not a number', () => {
    for (const typed of ['abc', '1.2.3', '1 000', '1e3', '.', '-']) expect(text(typed, 'en'), typed).toBe('error:invalid');
    expect(text('  ', 'en')).toBe('error:empty');
  });
});

describe('Russian: "," is the decimal separator, spaces group', () => {
  it('reads decimal commas, the point of a copied price, and space / no-break space groups', () => {
    expect(text('1,5', 'ru')).toBe('1.5');
    expect(text('290.5', 'ru')).toBe('290.5');
    expect(text('1 000', 'ru')).toBe('1000');
    expect(text('1\u00a0234\u202f567,25', 'ru')).toBe('1234567.25');
  });

  it('refuses both separators, badly placed groups and more than one separator', () => {
    expect(text('1.000,5', 'ru')).toBe('error:separators');
    expect(text('1,234.5', 'ru')).toBe('error:separators');
    for (const typed of ['10 00', '1 0000', '1,5 0']) expect(text(typed, 'ru'), typed).toBe('error:grouping');
    for (const typed of ['1,2,3', 'abc', '1_000']) expect(text(typed, 'ru'), typed).toBe('error:invalid');
  });
});

describe('messages and starting texts', () => {
  it('says what to write, in the locale', () => {
    expect(decimalInputMessage('grouping', 'en')).toContain('1,000');
    expect(decimalInputMessage('grouping', 'ru')).toContain('1 234,5');
  });

  it('reads several fields at once, with a message for each refused one', () => {
    expect(parseDecimalFields({ quantity: '1,000', price: '250' }, 'en')).toEqual({ ok: true, texts: { quantity: '1000', price: '250' } });
    expect(parseDecimalFields({ quantity: '1,5', price: '250', commission: 'x' }, 'en')).toEqual({
      ok: false,
      errors: { quantity: [decimalInputMessage('grouping', 'en')], commission: [decimalInputMessage('invalid', 'en')] },
    });
  });

  it('writes a number as the locale reads it back, without groups or exponent', () => {
    expect(decimalInputText(290.5, 'ru')).toBe('290,5');
    expect(decimalInputText(1234567.5, 'en')).toBe('1234567.5');
    expect(decimalInputText(1e-7, 'en')).toBe('0.0000001');
    for (const locale of ['ru', 'en'] as const) expect(text(decimalInputText(1234.56789, locale), locale)).toBe('1234.56789');
  });
});
