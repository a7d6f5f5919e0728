import { describe, expect, it } from 'vitest';
import { questionLanguage } from './question-language.js';

describe('questionLanguage', () => {
  it('Cyrillic is Russian, Latin is English', () => {
    expect(questionLanguage('Как здоровье моего портфеля?')).toBe('ru');
    expect(questionLanguage('How healthy is my portfolio?')).toBe('en');
  });

  it('tickers and ISINs in Latin capitals do not make a Russian question English', () => {
    expect(questionLanguage('SBER, GAZP, LKOH и US0378331005 — что с ними?')).toBe('ru');
    expect(questionLanguage('What about SBER?')).toBe('en');
  });

  it('the language with more letters wins a mixed question; no letters is Russian', () => {
    expect(questionLanguage('Расскажи про dividends и доходность')).toBe('ru');
    expect(questionLanguage('Tell me about the dividends of Сбер')).toBe('en');
    expect(questionLanguage('???')).toBe('ru');
    expect(questionLanguage('')).toBe('ru');
  });
});
