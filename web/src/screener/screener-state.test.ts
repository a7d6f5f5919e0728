import { describe, expect, it } from 'vitest';
import { billionsToRub, DEFAULT_STATE, decodeScreenerState, encodeScreenerState, normalizeBound, pageInRange, rubToBillions, screenerApiQuery, toggleSort, withFilter } from './screener-state';

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

describe('dividend yield and market cap ranges', () => {
  it('round-trip through the URL under the API names and reach the API query', () => {
    const state = { ...DEFAULT_STATE, yieldMin: '5', yieldMax: '12.5', capMin: '100000000000', capMax: '1000000000000' };
    const query = encodeScreenerState(state);
    expect(query).toBe('?dividend_yield_min=5&dividend_yield_max=12.5&market_cap_min=100000000000&market_cap_max=1000000000000');
    expect(decodeScreenerState(query)).toEqual(state);
    expect(screenerApiQuery(state)).toMatchObject({ dividend_yield_min: '5', dividend_yield_max: '12.5', market_cap_min: '100000000000', market_cap_max: '1000000000000' });
  });

  it('drops malformed bounds and the upper bound of an inverted range, as the API would refuse them', () => {
    expect(decodeScreenerState('?dividend_yield_min=1e3&market_cap_min=-5&market_cap_max=abc')).toEqual(DEFAULT_STATE);
    expect(decodeScreenerState('?dividend_yield_min=10&dividend_yield_max=5')).toEqual({ ...DEFAULT_STATE, yieldMin: '10' });
    expect(decodeScreenerState('?dividend_yield_min=7,50')).toEqual({ ...DEFAULT_STATE, yieldMin: '7.5' });
  });

  it('reads bounds typed in either locale, market cap in billions', () => {
    expect(normalizeBound(' 2,5 ')).toBe('2.5');
    expect(normalizeBound('')).toBeUndefined();
    expect(normalizeBound('5%')).toBeUndefined();
    expect(billionsToRub('100')).toBe('100000000000');
    expect(billionsToRub('0,5')).toBe('500000000');
    expect(billionsToRub('1.1')).toBe('1100000000');
    expect(billionsToRub('2000000')).toBeUndefined();
    expect(rubToBillions('500000000')).toBe('0.5');
    expect(rubToBillions(undefined)).toBe('');
  });

  it('a range change shows the first page; a cleared bound leaves the URL', () => {
    expect(withFilter({ ...DEFAULT_STATE, page: 4, yieldMin: '5' }, { yieldMin: '', capMin: '1000' })).toEqual({ ...DEFAULT_STATE, capMin: '1000' });
  });
});

describe('a page past the end', () => {
  it('goes to the last page; a page with rows or within range stays', () => {
    expect(pageInRange({ current_page: 40, last_page: 11 }, 0)).toBe(11);
    expect(pageInRange({ current_page: 3, last_page: 1 }, 0)).toBe(1);
    expect(pageInRange({ current_page: 11, last_page: 11 }, 5)).toBeUndefined();
    expect(pageInRange({ current_page: 1, last_page: 1 }, 0)).toBeUndefined();
  });
});
