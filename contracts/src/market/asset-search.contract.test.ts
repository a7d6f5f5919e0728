import { describe, expect, it } from 'vitest';
import { searchAssetsQuerySchema } from './asset-search.contract.js';

const errorsOf = (input: unknown) => {
  const r = searchAssetsQuerySchema.safeParse(input);
  return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
};

describe('searchAssetsQuerySchema', () => {
  it('reads query-string input: trimmed search, any-case type, limit 20 by default', () => {
    expect(searchAssetsQuerySchema.parse({})).toEqual({ limit: 20 });
    expect(searchAssetsQuerySchema.parse({ search: '  Газпром ', type: ' Bond ', limit: '5' })).toEqual({ search: 'Газпром', type: 'bond', limit: 5 });
    expect(searchAssetsQuerySchema.parse({ search: '  ', type: '', limit: '' })).toEqual({ limit: 20 });
  });

  it('accepts its own output (the gateway forwards the parsed query)', () => {
    const once = searchAssetsQuerySchema.parse({ search: 'sber', type: 'custom_asset', limit: '50' });
    expect(searchAssetsQuerySchema.parse(once)).toEqual(once);
  });

  it('names each bad field', () => {
    expect(errorsOf({ type: 'stock' })).toEqual({ type: 'The selected type is invalid. Allowed: token, share, bond, etf, future, currency, custom_asset.' });
    expect(errorsOf({ type: ['share', 'bond'] })).toHaveProperty('type');
    expect(errorsOf({ limit: '0' })).toHaveProperty('limit');
    expect(errorsOf({ limit: '51' })).toHaveProperty('limit', 'The limit field must not be greater than 50.');
    expect(errorsOf({ search: 'x'.repeat(101) })).toHaveProperty('search');
    expect(errorsOf({ search: 'sb\u0000er' })).toHaveProperty('search', expect.stringMatching(/control characters/));
    expect(errorsOf({ search: 5 })).toHaveProperty('search');
  });
});
