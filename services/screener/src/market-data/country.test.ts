import { describe, expect, it } from 'vitest';
import { countryFromIsin, countryName } from './country.js';

describe('countryFromIsin', () => {
  it('takes the ISIN prefix as the ISO 3166-1 country, with its English name', () => {
    expect(countryFromIsin('RU0009029540')).toEqual({ code: 'RU', name: 'Russia' });
    expect(countryFromIsin('US69269L1044')).toEqual({ code: 'US', name: 'United States' });
    expect(countryFromIsin('NL0009805522')).toEqual({ code: 'NL', name: 'Netherlands' });
    expect(countryFromIsin('JE00B6T5S470')).toEqual({ code: 'JE', name: 'Jersey' });
  });
  it('gives null for prefixes that are not countries and for malformed ISINs', () => {
    expect(countryFromIsin('XS0191754729')).toBeNull();
    expect(countryFromIsin('EU000A1G0AR7')).toBeNull();
    expect(countryFromIsin('RU00090295')).toBeNull();
    expect(countryFromIsin(null)).toBeNull();
    expect(countryName('ZZ')).toBeNull();
  });
});
