import { randomUUID } from 'node:crypto';
import { type BusEvent, decodeMarketEvent, isUnknownEvent } from '@invest/contracts';
import { createLogger, type Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { handleMarketEvent } from './rates-updated.consumer.js';

const logger = createLogger('portfolios-asset-updated-test', 'silent');

describe('market events: AssetUpdated on the asset catalog', () => {
  let db: Db;
  useTestDatabase('pf_asset_upd', migrations, (opened) => (db = opened));

  const event = (streamPosition: number, ticker: string, name: string, currency: string, assetId = 7): BusEvent => ({
    id: randomUUID(),
    type: 'AssetUpdated',
    streamName: `asset-custom_asset-${assetId}`,
    streamPosition,
    recordedAt: new Date().toISOString(),
    data: { version: 1, assetType: 'custom_asset', assetId, ticker, name, currency },
    metadata: {},
  });
  const apply = (e: BusEvent) => {
    const event = decodeMarketEvent(e);
    if (isUnknownEvent(event)) throw new Error(`not a market event this release reads: ${e.type}`);
    return db.transaction((tx) => handleMarketEvent(event, tx, logger));
  };
  const row = async (assetId = 7) =>
    (
      await db.query<{ ticker: string; name: string; currency: string; price_seq: string }>(
        `select ticker, name, currency, price_seq::text from assets where asset_type = 'custom_asset' and asset_id = $1`,
        [assetId],
      )
    )[0];

  it('applies a newer description and moves the price number on (cached statistics go stale); an older one is ignored', async () => {
    await db.query(`insert into assets (asset_type, asset_id, ticker, name, currency, current_rate) values ('custom_asset', 7, 'OLD', 'Old', 'RUB', 5)`);
    const seq = Number((await row())!.price_seq);
    await apply(event(2, 'NEW', 'New', 'USD'));
    const applied = await row();
    expect(applied).toMatchObject({ ticker: 'NEW', name: 'New', currency: 'USD' });
    expect(Number(applied!.price_seq)).toBeGreaterThan(seq);
    // A redelivered older description (position 1) does not undo the newer one.
    await apply(event(1, 'OLDER', 'Older', 'EUR'));
    expect(await row()).toEqual(applied);
  });

  it('leaves alone an asset the service does not hold', async () => {
    await apply(event(1, 'X', 'X', 'RUB', 8));
    expect(await row(8)).toBeUndefined();
  });
});

describe('market events: RatesUpdated with a time not to be trusted', () => {
  let db: Db;
  useTestDatabase('pf_rates_ahead', migrations, (opened) => (db = opened));

  const event = (asOf: string, rate: number): BusEvent => ({
    id: randomUUID(),
    type: 'RatesUpdated',
    streamName: 'rates-share',
    streamPosition: 1,
    recordedAt: new Date().toISOString(),
    data: { version: 1, source: 'test', rates: [{ assetType: 'share', assetId: 42, ticker: 'SBER', currency: 'RUB', rate, priceChangePercentage24h: 0, asOf }] },
    metadata: {},
  });
  const apply = (e: BusEvent) => {
    const decoded = decodeMarketEvent(e);
    if (isUnknownEvent(decoded)) throw new Error(`not a market event this release reads: ${e.type}`);
    return db.transaction((tx) => handleMarketEvent(decoded, tx, logger));
  };
  const held = async () => (await db.query<{ current_rate: number }>(`select current_rate::float8 as current_rate from assets where asset_type = 'share' and asset_id = 42`))[0];

  // Dated ahead of the recording, or in a form Postgres reads as a time (far ahead) and JavaScript does not.
  for (const bogus of ['2099-01-01T00:00:00Z', 'infinity', '20990101T000000Z', '2099-01-01T00:00:00.000+03', 'tomorrow']) {
    it(`skips a rate dated "${bogus}", so the next correct rate lands`, async () => {
      await db.query(`delete from assets where asset_type = 'share' and asset_id = 42`);
      await apply(event(new Date(Date.now() - 60_000).toISOString(), 100));
      await apply(event(bogus, 1));
      expect(await held()).toEqual({ current_rate: 100 });
      await apply(event(new Date().toISOString(), 101));
      expect(await held()).toEqual({ current_rate: 101 });
    });
  }
});
