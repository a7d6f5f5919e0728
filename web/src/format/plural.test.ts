import { describe, expect, it } from 'vitest';
import { countOf, pluralForm, SHARE_FORMS } from './plural';

describe('plurals by Intl.PluralRules', () => {
  it('Russian: one, few, many and fractions', () => {
    const ru = (n: number) => countOf('ru', n, SHARE_FORMS);
    expect([1, 2, 5].map(ru)).toEqual(['1 акция', '2 акции', '5 акций']);
    expect([0, 4, 11, 12, 14, 21, 22, 25, 101, 111, 255].map(ru)).toEqual([
      '0 акций',
      '4 акции',
      '11 акций',
      '12 акций',
      '14 акций',
      '21 акция',
      '22 акции',
      '25 акций',
      '101 акция',
      '111 акций',
      '255 акций',
    ]);
    expect(ru(1234)).toBe('1 234 акции');
    expect(pluralForm('ru', 1.5, SHARE_FORMS.ru)).toBe('акции');
  });

  it('English: one and other', () => {
    const en = (n: number) => countOf('en', n, SHARE_FORMS);
    expect([0, 1, 2, 5, 21, 1234].map(en)).toEqual(['0 shares', '1 share', '2 shares', '5 shares', '21 shares', '1,234 shares']);
  });

  it('falls back to other for a category the forms leave out', () => {
    expect(pluralForm('ru', 3, { other: 'штуки' })).toBe('штуки');
  });
});
