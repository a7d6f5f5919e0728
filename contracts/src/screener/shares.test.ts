import { describe, expect, it } from 'vitest';
import { listSharesQuerySchema } from './shares.js';

const errorsOf = (input: unknown) => {
  const r = listSharesQuerySchema.safeParse(input);
  if (r.success) return {};
  return Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
};

describe('listSharesQuerySchema', () => {
  it('applies the documented defaults', () => {
    expect(listSharesQuerySchema.parse({})).toEqual({ page: 1, per_page: 20, sort: 'market_cap', direction: 'desc' });
  });

  it('normalises query-string input', () => {
    expect(
      listSharesQuerySchema.parse({
        page: '3',
        per_page: '50',
        sort: 'Dividend_Yield',
        direction: 'ASC',
        category: ' 7 ',
        country_code: 'ru',
        search: '  Сбер ',
      }),
    ).toEqual({ page: 3, per_page: 50, sort: 'dividend_yield', direction: 'asc', category: 7, country_code: 'RU', search: 'Сбер' });
    expect(listSharesQuerySchema.parse({ category: 'Preferred' }).category).toBe('preferred');
  });

  it('treats empty values as not given', () => {
    expect(listSharesQuerySchema.parse({ sort: '', direction: ' ', category: '', country_code: '', search: '   ' })).toEqual({
      page: 1,
      per_page: 20,
      sort: 'market_cap',
      direction: 'desc',
    });
  });

  it('accepts its own output (the gateway forwards the parsed query)', () => {
    for (const input of [{}, { page: '2', category: '5', country_code: 'kz', search: 'x' }, { category: 'depositary-receipt', sort: 'trading_volume' }]) {
      const once = listSharesQuerySchema.parse(input);
      expect(listSharesQuerySchema.parse(once)).toEqual(once);
    }
  });

  it('names each bad field', () => {
    expect(errorsOf({ sort: 'name' })).toHaveProperty('sort', expect.stringMatching(/sort is invalid/));
    expect(errorsOf({ sort: ['market_cap', 'trading_volume'] })).toHaveProperty('sort');
    expect(errorsOf({ direction: 'up' })).toHaveProperty('direction', expect.stringMatching(/direction is invalid/));
    expect(errorsOf({ page: '0' })).toHaveProperty('page');
    expect(errorsOf({ page: 'abc' })).toHaveProperty('page');
    expect(errorsOf({ per_page: '101' })).toHaveProperty('per_page');
    expect(errorsOf({ country_code: 'RUS' })).toHaveProperty('country_code', expect.stringMatching(/ISO 3166-1/));
    expect(errorsOf({ country_code: 'R1' })).toHaveProperty('country_code');
    expect(errorsOf({ category: '0' })).toHaveProperty('category');
    expect(errorsOf({ category: 'a b' })).toHaveProperty('category');
    expect(errorsOf({ category: '99999999999' })).toHaveProperty('category');
    expect(errorsOf({ search: 'x'.repeat(101) })).toHaveProperty('search');
    expect(errorsOf({ search: 'sb\u0000er' })).toHaveProperty('search', expect.stringMatching(/control characters/));
    expect(errorsOf({ search: 123 })).toHaveProperty('search');
    expect(Object.keys(errorsOf({ page: 0, sort: 'x', direction: 'y', country_code: 'xyz' })).sort()).toEqual(['country_code', 'direction', 'page', 'sort']);
  });

  it('reads the dividend yield and market cap ranges as decimal numbers', () => {
    expect(
      listSharesQuerySchema.parse({ dividend_yield_min: '5', dividend_yield_max: '12,5', market_cap_min: ' 1000000000 ', market_cap_max: '2000000000.75' }),
    ).toMatchObject({ dividend_yield_min: 5, dividend_yield_max: 12.5, market_cap_min: 1e9, market_cap_max: 2000000000.75 });
    expect(listSharesQuerySchema.parse({ dividend_yield_min: '', market_cap_max: ' ' })).toEqual({ page: 1, per_page: 20, sort: 'market_cap', direction: 'desc' });
    const once = listSharesQuerySchema.parse({ dividend_yield_min: '0', market_cap_max: '7.5' });
    expect(listSharesQuerySchema.parse(once)).toEqual(once);
  });

  it('refuses malformed, negative, huge and inverted ranges, naming the field', () => {
    for (const bad of ['1e3', '0x10', '-1', '+1', '1.2.3', 'abc', '5 %', 'NaN', 'Infinity', '.5', '1.']) {
      expect(errorsOf({ dividend_yield_min: bad }), bad).toHaveProperty('dividend_yield_min');
      expect(errorsOf({ market_cap_max: bad }), bad).toHaveProperty('market_cap_max');
    }
    expect(errorsOf({ dividend_yield_max: '1001' })).toHaveProperty('dividend_yield_max', expect.stringMatching(/not be greater than 1000/));
    expect(errorsOf({ market_cap_min: ['1', '2'] })).toHaveProperty('market_cap_min');
    expect(errorsOf({ dividend_yield_min: '10', dividend_yield_max: '5' })).toEqual({
      dividend_yield_max: 'The dividend yield max field must be greater than or equal to dividend yield min.',
    });
    expect(errorsOf({ market_cap_min: '2000', market_cap_max: '1000' })).toHaveProperty('market_cap_max', expect.stringMatching(/greater than or equal to market cap min/));
    expect(errorsOf({ market_cap_min: '1000', market_cap_max: '1000' })).toEqual({});
  });
});
