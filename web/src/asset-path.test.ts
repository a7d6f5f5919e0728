import { describe, expect, it } from 'vitest';
import { assetOfPath, assetPath, tickerPath } from './asset-path';

describe('asset addresses', () => {
  it('links a market asset\'s ticker to its page, escaped, and reads the address back', () => {
    expect(tickerPath('share', 'SBER')).toBe('/assets/share/SBER');
    expect(tickerPath('bond', 'SU26238RMFS4')).toBe('/assets/bond/SU26238RMFS4');
    expect(assetPath('currency', 'USD/RUB')).toBe('/assets/currency/USD%2FRUB');
    expect(assetOfPath(assetPath('currency', 'USD/RUB'))).toEqual({ type: 'currency', ticker: 'USD/RUB' });
  });

  it('gives a custom asset (the user\'s own) no link', () => {
    expect(tickerPath('custom_asset', 'MYFLAT')).toBeNull();
  });
});
