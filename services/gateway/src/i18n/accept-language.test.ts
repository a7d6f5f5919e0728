import { describe, expect, it } from 'vitest';
import { localeFromAcceptLanguage } from './accept-language.js';

describe('localeFromAcceptLanguage', () => {
  it('picks the first supported language by q-value, Russian by default', () => {
    expect(localeFromAcceptLanguage('en-US,en;q=0.9')).toBe('en');
    expect(localeFromAcceptLanguage('ru-RU,ru;q=0.9,en;q=0.8')).toBe('ru');
    expect(localeFromAcceptLanguage('de-DE, en;q=0.5')).toBe('en');
    expect(localeFromAcceptLanguage('ru;q=0.3, en;q=0.7')).toBe('en');
    expect(localeFromAcceptLanguage('fr')).toBe('ru');
    expect(localeFromAcceptLanguage(undefined)).toBe('ru');
    expect(localeFromAcceptLanguage('en;q=0')).toBe('ru');
  });

  it('falls back to the locale given when no supported language is named', () => {
    expect(localeFromAcceptLanguage('*', 'en')).toBe('en');
    expect(localeFromAcceptLanguage(undefined, 'en')).toBe('en');
    expect(localeFromAcceptLanguage('fr', 'en')).toBe('en');
    expect(localeFromAcceptLanguage('fr, ru;q=0.5', 'en')).toBe('ru');
  });
});
