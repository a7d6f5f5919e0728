import { describe, expect, it } from 'vitest';
import { alreadyReached, compareDecimalText, directionOf, distancePercent, rateText } from './price-target';

describe('price target direction in the dialog', () => {
  it('compares decimal texts exactly, beyond what a double keeps', () => {
    expect(compareDecimalText('1000000000000.00000001', '1000000000000')).toBe(1);
    expect(compareDecimalText('100.00', '100')).toBe(0);
    expect(compareDecimalText('0099.9', '100')).toBe(-1);
    expect(compareDecimalText('-1', '0.5')).toBe(-1);
    expect(compareDecimalText('-2', '-1')).toBe(-1);
    expect(compareDecimalText('0.0', '-0')).toBe(0);
    expect(compareDecimalText('10', '9.99999999')).toBe(1);
  });

  it('reads a rate as the decimal its shortest text says', () => {
    expect(rateText(290.5)).toBe('290.5');
    expect(rateText(1e12)).toBe('1000000000000');
    expect(rateText(1e-7)).toBe('0.0000001');
  });

  it('follows the alerts rule: above needs a target over the rate, below one under it; equal is reached both ways', () => {
    expect(directionOf('110', 100)).toBe('above');
    expect(directionOf('90', 100)).toBe('below');
    expect(directionOf('100.0', 100)).toBeNull();
    expect(alreadyReached('110', 100, 'above')).toBe(false);
    expect(alreadyReached('90', 100, 'above')).toBe(true);
    expect(alreadyReached('90', 100, 'below')).toBe(false);
    expect(alreadyReached('110', 100, 'below')).toBe(true);
    expect(alreadyReached('100', 100, 'above')).toBe(true);
    expect(alreadyReached('100', 100, 'below')).toBe(true);
    expect(alreadyReached('1000000000000.00000001', 1e12, 'above')).toBe(false);
  });

  it('gives the distance from the rate in percent', () => {
    expect(distancePercent('105.2', 100)).toBeCloseTo(5.2, 10);
    expect(distancePercent('95', 100)).toBeCloseTo(-5, 10);
    expect(distancePercent('95', null)).toBeNull();
    expect(distancePercent('95', 0)).toBeNull();
  });
});
