import { describe, expect, it } from 'vitest';
import { createCustomAssetRequestSchema } from '../market/custom-assets.contract.js';
import { createDealBodySchema } from '../portfolios/deals.contract.js';
import { canonicalDecimal, decimalOutputSchema, decimalSchema } from './decimal.js';

const messages = (r: { success: boolean; error?: { issues: { message: string }[] } }) => r.error?.issues.map((i) => i.message) ?? [];

describe('decimalSchema: one rule for money and quantities', () => {
  const quantity = decimalSchema('quantity', 'positive');
  const price = decimalSchema('price', 'nonnegative');

  it('reads JSON numbers and decimal strings (plain or exponent notation) as canonical decimal text', () => {
    expect(quantity.parse(10)).toBe('10');
    expect(quantity.parse(42290747.88)).toBe('42290747.88');
    expect(quantity.parse(' 1.50 ')).toBe('1.5');
    expect(quantity.parse('1e3')).toBe('1000');
    expect(quantity.parse('2.5E-3')).toBe('0.0025');
    expect(quantity.parse('999999999999999.99999999')).toBe('999999999999999.99999999');
    expect(quantity.parse(1e15)).toBe('1000000000000000');
    expect(quantity.parse('0.00000001')).toBe('0.00000001');
    expect(price.parse(0)).toBe('0');
    // Its own output parses to itself (the gateway forwards what it parsed).
    expect(quantity.parse(quantity.parse('123.45600'))).toBe('123.456');
  });

  it('refuses more than 8 decimal places, more than 1e15, the wrong sign and what is not a number', () => {
    expect(messages(quantity.safeParse(5e-324))).toEqual(['The quantity may not have more than 8 decimal places.']);
    expect(messages(quantity.safeParse('0.000000001'))).toEqual(['The quantity may not have more than 8 decimal places.']);
    expect(messages(quantity.safeParse('1000000000000000.00000001'))).toEqual(['The quantity may not be greater than 1000000000000000 in magnitude.']);
    expect(messages(quantity.safeParse('1e16'))).toEqual(['The quantity may not be greater than 1000000000000000 in magnitude.']);
    expect(messages(quantity.safeParse(0))).toEqual(['The quantity must be greater than 0.']);
    expect(messages(price.safeParse(-1))).toEqual(['The price must be at least 0.']);
    for (const bad of ['ten', '', '0x10', '1e99999', true, [5], null, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(messages(quantity.safeParse(bad)), String(bad)).toEqual(['The quantity must be a number.']);
    }
  });

  it('is the same rule for deals and custom-asset prices ("1e3" and the 8-place minimum alike)', () => {
    const deal = { type: 'buy', assetable: { type: 'share', id: 1 }, quantity: 1, date: '2024-01-01' };
    const asset = { name: 'Flat', currency: 'RUB' };
    for (const p of ['1e3', '0.00000001', 1e15]) {
      expect(createDealBodySchema.safeParse({ ...deal, price: p }).success, String(p)).toBe(true);
      expect(createCustomAssetRequestSchema.safeParse({ ...asset, price: p }).success, String(p)).toBe(true);
    }
    for (const p of ['1e-9', '1000000000000000.1', 'abc']) {
      expect(createDealBodySchema.safeParse({ ...deal, price: p }).success, String(p)).toBe(false);
      expect(createCustomAssetRequestSchema.safeParse({ ...asset, price: p }).success, String(p)).toBe(false);
    }
    expect(createDealBodySchema.parse({ ...deal, price: 5 }).commission).toBe('0');
  });
});

describe('canonicalDecimal and decimalOutputSchema', () => {
  it('write decimals without exponent, leading or trailing zeros', () => {
    expect(canonicalDecimal('-000.500')).toBe('-0.5');
    expect(canonicalDecimal(1e-7)).toBe('0.0000001');
    expect(canonicalDecimal('-0')).toBe('0');
    expect(canonicalDecimal('1.')).toBe('1');
    expect(canonicalDecimal('.')).toBeNull();
    expect(decimalOutputSchema.parse('42290747.88')).toBe('42290747.88');
    expect(decimalOutputSchema.parse(0.1)).toBe('0.1');
    expect(decimalOutputSchema.safeParse('1e3').success).toBe(false);
  });
});
