import { describe, expect, it } from 'vitest';
import { DEFAULT_STATE, decodeScreenerState, encodeScreenerState, screenerApiQuery, toggleSort, withFilter } from './screener-state';

describe('screener state in the URL', () => {
  it('leaves the default view as a bare path', () => {
    expect(encodeScreenerState(DEFAULT_STATE)).toBe('');
    expect(decodeScreenerState('')).toEqual(DEFAULT_STATE);
  });

  it('round-trips every part of the view, Cyrillic search included', () => {
    const state = { page: 3, perPage: 50, sort: 'dividend_yield' as const, direction: 'asc' as const, category: 'preferred', country: 'RU', search: 'Сбербанк' };
    const query = encodeScreenerState(state);
    expect(query).toBe('?search=%D0%A1%D0%B1%D0%B5%D1%80%D0%B1%D0%B0%D0%BD%D0%BA&category=preferred&country_code=RU&sort=dividend_yield&direction=asc&per_page=50&page=3');
    expect(decodeScreenerState(query)).toEqual(state);
  });

  it('falls back to defaults for anything malformed instead of failing the page', () => {
    expect(decodeScreenerState('?sort=name&direction=up&page=0&per_page=7&country_code=RUS&category=%20')).toEqual(DEFAULT_STATE);
    expect(decodeScreenerState('?page=abc').page).toBe(1);
  });

  it('normalises case the way the API does', () => {
    expect(decodeScreenerState('?country_code=ru&category=Preferred')).toMatchObject({ country: 'RU', category: 'preferred' });
  });

  it('caps the search at the API limit', () => {
    expect(decodeScreenerState(`?search=${'a'.repeat(150)}`).search).toHaveLength(100);
  });

  it('asks the API for exactly the view', () => {
    expect(screenerApiQuery({ ...DEFAULT_STATE, search: 'sber', country: 'RU' })).toEqual({
      page: '1',
      per_page: '25',
      sort: 'market_cap',
      direction: 'desc',
      country_code: 'RU',
      search: 'sber',
    });
  });
});

describe('sorting and filtering change the view predictably', () => {
  it('starts a new column descending and flips the same column', () => {
    const byYield = toggleSort({ ...DEFAULT_STATE, page: 4 }, 'dividend_yield');
    expect(byYield).toMatchObject({ sort: 'dividend_yield', direction: 'desc', page: 1 });
    expect(toggleSort(byYield, 'dividend_yield').direction).toBe('asc');
    expect(toggleSort(toggleSort(byYield, 'dividend_yield'), 'dividend_yield').direction).toBe('desc');
  });

  it('returns to the first page on a filter change and drops cleared filters', () => {
    const filtered = withFilter({ ...DEFAULT_STATE, page: 5, category: 'ordinary' }, { category: '', search: 'газ' });
    expect(filtered).toEqual({ ...DEFAULT_STATE, search: 'газ' });
  });
});
