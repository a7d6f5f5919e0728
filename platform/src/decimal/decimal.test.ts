import { describe, expect, it } from 'vitest';
import { Decimal } from './decimal.js';

const d = Decimal.of;

describe('Decimal', () => {
  it('multiplies and adds without binary noise (42290747.88 x 1 is 42290747.88, not 42290747.88000001)', () => {
    // The doubles give the noise the issue reported; the decimals do not.
    expect(String(Math.round(42290747.88 * 1 * 1e8) / 1e8)).toBe('42290747.88000001');
    expect(d('42290747.88').times(d('1')).round(8).toString()).toBe('42290747.88');
    expect(String(Math.round(36716396.59 * 1e8) / 1e8)).toBe('36716396.59000001');
    expect(Decimal.sum([d('36716396.59'), d(0)]).round(8).toString()).toBe('36716396.59');
    expect(d('1000000000000000').times(d('1')).round(8).toString()).toBe('1000000000000000');
    expect(d('0.1').plus(d('0.2')).toString()).toBe('0.3');
    // (1e15 - 1e-8)^2 = 1e30 - 2e7 + 1e-16, every digit kept.
    expect(d('999999999999999.99999999').times(d('999999999999999.99999999')).toString()).toBe(
      '999999999999999999999980000000.0000000000000001',
    );
  });

  it('reads text in plain or exponent notation and finite numbers by their shortest text', () => {
    expect(d('1e-8').toString()).toBe('0.00000001');
    expect(d('-2.50').toString()).toBe('-2.5');
    expect(d(0.1).toString()).toBe('0.1');
    expect(d(1e21).toString()).toBe('1000000000000000000000');
    expect(d('-0').toString()).toBe('0');
    expect(() => d('abc')).toThrow(RangeError);
    expect(() => d(Number.NaN)).toThrow(RangeError);
  });

  it('reads up to 15 digits through a number and longer text through BigInt, exactly either way', () => {
    // 15 digits are below 2^53; 16 and 17 are not all exact as doubles (9007199254740993 is not one).
    expect(d('999999999999.999').toString()).toBe('999999999999.999');
    expect(d('-99999999999999.9').toString()).toBe('-99999999999999.9');
    expect(d('9007199254740993').toString()).toBe('9007199254740993');
    expect(d('-900719925474099.37').toString()).toBe('-900719925474099.37');
    expect(d('0007.50').toString()).toBe('7.5');
    expect(d('9007199254740993').minus(d('9007199254740992')).toString()).toBe('1');
  });

  it('subtracts, compares and rounds half away from zero', () => {
    expect(d('1').minus(d('0.00000001')).toString()).toBe('0.99999999');
    expect(d('0.000000005').round(8).toString()).toBe('0.00000001');
    expect(d('-0.000000005').round(8).toString()).toBe('-0.00000001');
    expect(d('0.0000000049').round(8).toString()).toBe('0');
    expect(d('2').cmp(d('10'))).toBe(-1);
    expect(d('1.0').cmp(d('1'))).toBe(0);
    expect(d('3').max(d('-4')).toString()).toBe('3');
    expect(d('-3').sign()).toBe(-1);
  });

  it('divides to 20 places, rounding half away from zero', () => {
    expect(d('1').div(d('3')).toString()).toBe('0.33333333333333333333');
    expect(d('2').div(d('3')).toString()).toBe('0.66666666666666666667');
    expect(d('-2').div(d('3')).toString()).toBe('-0.66666666666666666667');
    expect(d('10').div(d('4')).toString()).toBe('2.5');
    expect(d('1').div(d('3'), 2).toString()).toBe('0.33');
    expect(() => d('1').div(Decimal.ZERO)).toThrow(RangeError);
  });

  it('is written to JSON as its text and read back by of()', () => {
    expect(JSON.stringify({ a: d('1.10') })).toBe('{"a":"1.1"}');
    expect(d(JSON.parse(JSON.stringify(d('123.456'))) as string).toString()).toBe('123.456');
    expect(d('5').toNumber()).toBe(5);
  });
});
