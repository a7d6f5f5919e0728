import { type Db, type Logger } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { refreshCustomAssetChanges } from '../custom-assets/custom-assets.service.js';
import { migrations } from '../migrations/index.js';
import { lockRateWrites, recordRatesUpdated } from './rates-updated.recorder.js';

describe('recordRatesUpdated: non-finite numbers', () => {
  let db: Db;
  useTestDatabase('scr_recorder', migrations, (opened) => (db = opened));
  beforeEach(async () => {
    await db.query('truncate assets, es_events cascade');
  });
  const events = () => db.query<{ data: { rates: { ticker: string; rate: number | null; priceChangePercentage24h: number | null }[] } }>(
    `select data from es_events where type = 'RatesUpdated' order by global_position`,
  );

  it('records NaN/Infinity as null (unknown) and logs it, instead of failing the writer\'s transaction', async () => {
    const warn = vi.fn();
    const logger = { warn } as unknown as Logger;
    const change = { assetType: 'custom_asset' as const, ticker: 'X', currency: 'RUB', asOf: '2024-01-02T00:00:00.000Z' };
    await db.transaction(async (tx) => {
      await lockRateWrites(tx);
      await recordRatesUpdated(
        tx,
        'custom_asset',
        'test',
        [
          { ...change, assetId: 1, rate: 5, priceChangePercentage24h: Number.POSITIVE_INFINITY },
          { ...change, assetId: 2, rate: Number.NaN, priceChangePercentage24h: 1 },
        ],
        logger,
      );
    });
    expect((await events()).map((e) => e.data.rates)).toEqual([
      [expect.objectContaining({ rate: 5, priceChangePercentage24h: null }), expect.objectContaining({ rate: null, priceChangePercentage24h: 1 })],
    ]);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0]![0]).toMatchObject({ assetId: 1, field: 'priceChangePercentage24h' });
  });

  it('lets the nightly custom-asset day change through when an old tiny close makes it overflow a double', async () => {
    // Stored before the 1e-8 price minimum: yesterday's close 1e-300, today's price 1e10 (a change of ~1e312 %).
    const [a] = await db.query<{ id: string }>(
      `insert into assets (type, ticker, name, currency, current_rate) values ('custom_asset', 'OLD', 'Old', 'RUB', 1e10) returning id::text`,
    );
    await db.query(`insert into custom_assets (asset_id, owner_user_id) values ($1, 'u1')`, [a!.id]);
    await db.query(`insert into asset_daily_closes (asset_id, trade_date, close) values ($1, '2024-01-01', 1e-300)`, [a!.id]);
    const result = await refreshCustomAssetChanges(db, { today: '2024-01-02', source: 'get:assetRates' });
    expect(result.fetched).toBe(1);
    // The change is unknown, as it was before the run: nothing changed, so nothing is published, and
    // the stored value is not a number no reader can represent.
    expect(result.changed).toEqual([]);
    expect(await events()).toEqual([]);
    const [stored] = await db.query<{ ch: string | null }>('select price_change_percentage_24h::text as ch from assets where id = $1', [a!.id]);
    expect(stored!.ch).toBeNull();
  });
});
