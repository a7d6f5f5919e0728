import { describe, expect, it } from 'vitest';
import { formatCompactMoney, formatDateTime, formatDay, formatMoney, formatNumber, formatPercent } from './number-format';

describe('market cap and volume in short scale', () => {
  it('writes trillions the way each locale reads them', () => {
    expect(formatCompactMoney(6_260_214_920_000, 'RUB', 'ru')).toBe('6,26 трлн ₽');
    expect(formatCompactMoney(6_260_214_920_000, 'RUB', 'en')).toBe('6.26T RUB');
  });

  it('picks the scale of the value, with two decimals', () => {
    expect(formatCompactMoney(1_500_000_000, 'RUB', 'ru')).toBe('1,50 млрд ₽');
    expect(formatCompactMoney(1_500_000_000, 'RUB', 'en')).toBe('1.50B RUB');
    expect(formatCompactMoney(12_345_678, 'USD', 'ru')).toBe('12,35 млн $');
    expect(formatCompactMoney(12_345_678, 'USD', 'en')).toBe('12.35M USD');
    expect(formatCompactMoney(4_200, 'RUB', 'ru')).toBe('4,20 тыс. ₽');
    expect(formatCompactMoney(950, 'RUB', 'en')).toBe('950 RUB');
  });

  it('rounds before choosing the scale, so no 1000 of a smaller unit', () => {
    expect(formatCompactMoney(999_999_999_999, 'RUB', 'en')).toBe('1.00T RUB');
  });

  it('shows a dash for an unknown value', () => {
    expect(formatCompactMoney(null, 'RUB', 'ru')).toBe('—');
    expect(formatCompactMoney(Number.NaN, 'RUB', 'en')).toBe('—');
  });

  it('keeps codes without a Russian sign', () => {
    expect(formatCompactMoney(2e9, 'KZT', 'ru')).toBe('2,00 млрд KZT');
  });
});

describe('prices, numbers and percents', () => {
  it('groups digits with plain spaces in Russian and commas in English', () => {
    expect(formatNumber(1234567.891, 'ru')).toBe('1 234 567,89');
    expect(formatNumber(1234567.891, 'en')).toBe('1,234,567.89');
  });

  it('writes a price with its currency; small prices keep their digits', () => {
    expect(formatMoney(290.5, 'RUB', 'ru')).toBe('290,50 ₽');
    expect(formatMoney(290.5, 'RUB', 'en')).toBe('290.50 RUB');
    expect(formatMoney(0.001234, 'USD', 'en')).toBe('0.001234 USD');
    expect(formatMoney(null, 'RUB', 'en')).toBe('—');
  });

  it('signs a change and leaves a yield unsigned', () => {
    expect(formatPercent(0.27, 'ru')).toBe('+0,27 %');
    expect(formatPercent(-1.5, 'en')).toBe('-1.50%');
    expect(formatPercent(0, 'en')).toBe('0.00%');
    expect(formatPercent(7.125, 'en', false)).toBe('7.13%');
    expect(formatPercent(null, 'ru')).toBe('—');
  });

  it('writes date and time per locale', () => {
    expect(formatDateTime('2026-11-22T18:24:00Z', 'ru', 'UTC')).toBe('22.11.2026, 18:24');
    expect(formatDateTime('2026-11-22T18:24:00Z', 'en', 'UTC')).toBe('11/22/26, 6:24 PM');
    expect(formatDateTime('not a date', 'en')).toBe('—');
  });

  it('keeps a format per time zone: the same instant in another zone is another time', () => {
    expect(formatDateTime('2026-11-22T18:24:00Z', 'ru', 'UTC')).toBe('22.11.2026, 18:24');
    expect(formatDateTime('2026-11-22T18:24:00Z', 'ru', 'Europe/Moscow')).toBe('22.11.2026, 21:24');
    expect(formatDateTime('2026-11-22T18:24:00Z', 'ru', 'Asia/Vladivostok')).toBe('23.11.2026, 04:24');
  });
});

describe('calendar days', () => {
  it('shows a date column as its day alone, in either spelling, whatever the reader time zone', () => {
    expect(formatDay('2026-11-22', 'ru')).toBe('22.11.2026');
    expect(formatDay('2026-11-22T00:00:00.000Z', 'en')).toBe('11/22/26');
    expect(formatDay(null, 'en')).toBe('—');
    expect(formatDay('not a date', 'ru')).toBe('—');
  });
});
