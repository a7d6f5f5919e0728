import type { RateChange } from '@invest/contracts';
import { describe, expect, it } from 'vitest';
import { latestPerAsset } from './latest-rates.repository.js';

const rate = (assetId: number, asOf: string, rate = 100, assetType: RateChange['assetType'] = 'share'): RateChange =>
  ({ assetType, assetId, ticker: `T${assetId}`, currency: 'RUB', rate, priceChangePercentage24h: 0, asOf }) as RateChange;

describe('latestPerAsset', () => {
  it('gives the batch itself when every asset is named once (other types may share an id)', () => {
    const batch = [rate(1, '2026-03-10T12:00:00Z'), rate(2, '2026-03-10T12:00:00Z'), rate(1, '2026-03-10T12:00:00Z', 5, 'bond')];
    expect(latestPerAsset(batch)).toBe(batch);
  });

  it("keeps an asset's latest rate by its time, on a tie the later in the batch, in the batch's order", () => {
    const batch = [
      rate(1, '2026-03-10T12:01:00Z', 101),
      rate(2, '2026-03-10T12:00:00Z', 200),
      rate(1, '2026-03-10T12:00:00Z', 100),
      rate(3, '2026-03-10T12:00:00Z', 300),
      // The same instant written with an offset: a tie, the later one wins.
      rate(2, '2026-03-10T15:00:00+03:00', 201),
    ];
    expect(latestPerAsset(batch).map((r) => [r.assetId, r.rate])).toEqual([
      [1, 101],
      [3, 300],
      [2, 201],
    ]);
  });
});
