import { describe, expect, it } from 'vitest';
import { MAX_RATE_TIME_AHEAD_MS, type RateChange, ratesUpdatedV1Schema, ratesWithTrustedTimes, readRatesUpdatedV1 } from './rates-updated.event.js';

const rate = { assetType: 'share', assetId: 1, ticker: 'SBER', currency: 'RUB', rate: 300.5, priceChangePercentage24h: -1.25, asOf: '2026-01-01T00:00:00Z' };
const batch = { version: 1, source: 'get:assetRates', rates: [rate] };

/** Values a field may carry on the wire (JSON), valid for some fields and not for others, and missing. */
const values: unknown[] = [undefined, null, 0, -1, 1, 1.5, 2 ** 53, 1e308, '', 'share', 'custom_asset', 'x', '1', true, [], [1], {}, { a: 1 }];

function variants(): unknown[] {
  const out: unknown[] = [batch, { ...batch, extra: 'added later' }, { ...batch, rates: [{ ...rate, extra: 1 }, { ...rate, assetId: 2, currency: null, rate: null, priceChangePercentage24h: null }] }];
  for (const k of Object.keys(rate)) for (const v of values) out.push({ ...batch, rates: [rate, { ...rate, [k]: v }] });
  for (const k of Object.keys(batch)) for (const v of values) out.push({ ...batch, [k]: v });
  out.push({ ...batch, rates: [] }, { ...batch, rates: [rate, null] }, { ...batch, rates: [rate, [rate]] }, null, [], 'x', [batch]);
  return out;
}

describe('readRatesUpdatedV1', () => {
  it('accepts exactly what the schema accepts, and gives the same data', () => {
    let accepted = 0;
    for (const v of variants()) {
      const parsed = ratesUpdatedV1Schema.safeParse(v);
      const read = readRatesUpdatedV1(v);
      expect({ v, read }).toEqual({ v, read: parsed.success ? parsed.data : undefined });
      if (read) accepted++;
    }
    // Both sides of the comparison were exercised.
    expect(accepted).toBeGreaterThan(10);
  });
});

describe('ratesWithTrustedTimes', () => {
  const at = (asOf: string, assetId = 1): RateChange => ({ assetType: 'share', assetId, ticker: 'T', currency: 'RUB', rate: 1, priceChangePercentage24h: 0, asOf });
  const now = new Date('2026-11-27T12:00:00.000Z');

  it('trusts ISO 8601 instants up to MAX_RATE_TIME_AHEAD_MS after now, and gives the batch itself back when all are', () => {
    const batch = [at('2026-11-27T11:59:00.000Z', 1), at(new Date(now.getTime() + MAX_RATE_TIME_AHEAD_MS).toISOString(), 2), at('2026-11-27T14:59:00+03:00', 3), at('2026-11-27T11:00:00Z', 4)];
    const { trusted, untrusted } = ratesWithTrustedTimes(batch, now);
    expect(trusted).toBe(batch);
    expect(untrusted).toEqual([]);
  });

  it('sets apart rates dated later, in the batch order, whatever their neighbours share', () => {
    const late = new Date(now.getTime() + MAX_RATE_TIME_AHEAD_MS + 1).toISOString();
    const batch = [at('2026-11-27T11:59:00.000Z', 1), at(late, 2), at(late, 3), at('2026-11-27T11:59:00.000Z', 4), at('2099-01-01T00:00:00Z', 5)];
    const { trusted, untrusted } = ratesWithTrustedTimes(batch, now);
    expect(trusted.map((r) => r.assetId)).toEqual([1, 4]);
    expect(untrusted.map((r) => r.assetId)).toEqual([2, 3, 5]);
  });

  it('distrusts any other text, also forms Postgres would read as a time (and store ahead)', () => {
    const batch = ['not a time', 'infinity', 'tomorrow', '20990101T000000Z', '2099-01-01T00:00:00.000+03', '2026-11-27 11:00:00Z', '2026-11-27T11:00:00', '2026-13-40T00:00:00Z', ''].map((t, i) => at(t, i + 1));
    const { trusted, untrusted } = ratesWithTrustedTimes(batch, now);
    expect(trusted).toEqual([]);
    expect(untrusted).toHaveLength(batch.length);
  });
});
