import { type Db, ServiceError, openDatabase } from '@invest/platform';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { CustomAssetsService, refreshCustomAssetChanges, tickerFromName } from './custom-assets.service.js';

describe('custom assets', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let today = '2024-03-01';
  let service: CustomAssetsService;
  beforeAll(async () => {
    const t = await createTestDatabase('scr_custom');
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations });
    service = new CustomAssetsService(db, () => today);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });
  const events = () => db.query<{ data: { source: string; rates: { assetId: number; rate: number; priceChangePercentage24h: number | null }[] } }>(
    'select data from es_events order by global_position',
  );

  it('moves the day change on with the market day', async () => {
    const { data } = await service.create('u1', { name: 'Dacha', currency: 'RUB', price: 100 });
    expect(data).toMatchObject({ ticker: 'DACHA', current_rate: '100', price_change_percentage_24h: null });
    // Same day: nothing to compare with yet.
    expect((await refreshCustomAssetChanges(db, { today, source: 'test' })).changed).toEqual([]);

    today = '2024-03-02';
    const repriced = await service.update('u1', { id: data.id, price: 120 });
    expect(repriced.data.price_change_percentage_24h).toBe(20);

    // Next day, no new price: yesterday's close (120) is the reference, the change goes to 0 and is published.
    today = '2024-03-03';
    const moved = await refreshCustomAssetChanges(db, { today, source: 'get:assetRates' });
    expect(moved).toMatchObject({ fetched: 1, changed: [{ assetId: data.id, rate: 120, priceChangePercentage24h: 0 }] });
    expect((await refreshCustomAssetChanges(db, { today, source: 'get:assetRates' })).changed).toEqual([]);
    expect((await events()).map((e) => [e.data.source, e.data.rates[0]!.rate, e.data.rates[0]!.priceChangePercentage24h])).toEqual([
      ['screener.custom-assets', 100, null],
      ['screener.custom-assets', 120, 20],
      ['get:assetRates', 120, 0],
    ]);
  });

  it('is scoped to its owner', async () => {
    const { data } = await service.create('u1', { name: 'Car', ticker: 'CAR', currency: 'usd', price: 5000 });
    await expect(service.update('u2', { id: data.id, price: 1 })).rejects.toBeInstanceOf(ServiceError);
    expect((await service.list('u2')).data).toEqual([]);
    expect((await service.list('u1')).data.map((a) => a.ticker)).toEqual(['DACHA', 'CAR']);
  });

  it('refuses prices so small that a later day change overflows (500 instead of 422)', async () => {
    today = '2024-04-01';
    const err = await service.create('u3', { name: 'Dust', currency: 'RUB', price: 1e-300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).errors).toHaveProperty('price');
    // The smallest accepted price and the largest still give a finite change the next day.
    const { data } = await service.create('u3', { name: 'Dust', currency: 'RUB', price: 1e-8 });
    today = '2024-04-02';
    const { data: after } = await service.update('u3', { id: data.id, price: 1e15 });
    expect(Number.isFinite(after.price_change_percentage_24h)).toBe(true);
  });

  it('records AssetUpdated with the whole description when the name, ticker or currency changes, and only then', async () => {
    const { data } = await service.create('u4', { name: 'Garage', ticker: 'GRG', currency: 'RUB', price: 10 });
    const described = () =>
      db.query<{ stream_name: string; stream_position: string; data: unknown }>(
        `select stream_name, stream_position::text, data from es_events where type = 'AssetUpdated' and stream_name = $1 order by global_position`,
        [`asset-custom_asset-${data.id}`],
      );
    await service.update('u4', { id: data.id, price: 11, description: 'by the river' });
    expect(await described()).toEqual([]);
    await service.update('u4', { id: data.id, name: 'Big garage', currency: 'usd' });
    await service.update('u4', { id: data.id, ticker: 'BGRG' });
    // The same values again change nothing.
    await service.update('u4', { id: data.id, ticker: 'BGRG', name: 'Big garage' });
    expect(await described()).toEqual([
      { stream_name: `asset-custom_asset-${data.id}`, stream_position: '1', data: { version: 1, assetType: 'custom_asset', assetId: data.id, ticker: 'GRG', name: 'Big garage', currency: 'USD' } },
      { stream_name: `asset-custom_asset-${data.id}`, stream_position: '2', data: { version: 1, assetType: 'custom_asset', assetId: data.id, ticker: 'BGRG', name: 'Big garage', currency: 'USD' } },
    ]);
  });

  it("deletes the owner's asset (another user's is not found), refuses while it is used, records AssetDeleted", async () => {
    const { data } = await service.create('u5', { name: 'Boat', currency: 'RUB', price: 10 });
    await expect(service.delete('u6', { id: data.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(service.delete('u5', { id: 'x' })).rejects.toMatchObject({ code: 'not_found' });

    await db.query(`insert into used_assets (source, ref, asset_id) values ('portfolio', '12', $1), ('watchlist', '7', $1), ('portfolio', '3', $1)`, [data.id]);
    const used = await service.delete('u5', { id: data.id }).catch((e: unknown) => e);
    expect(used).toBeInstanceOf(ServiceError);
    expect(used).toMatchObject({
      code: 'conflict',
      message: 'The custom asset is in use (portfolio 3, portfolio 12, watchlist 7); remove it from there first.',
      extra: { used_in: [{ type: 'portfolio', id: 3 }, { type: 'portfolio', id: 12 }, { type: 'watchlist', id: 7 }] },
    });
    expect((await service.list('u5')).data.map((a) => a.id)).toEqual([data.id]);

    await db.query('delete from used_assets where asset_id = $1', [data.id]);
    expect(await service.delete('u5', { id: data.id })).toEqual({ data: { id: data.id, deleted: true } });
    expect((await service.list('u5')).data).toEqual([]);
    expect(await db.query('select 1 from assets where id = $1', [data.id])).toEqual([]);
    const [deleted] = await db.query<{ data: unknown }>(`select data from es_events where type = 'AssetDeleted'`);
    expect(deleted?.data).toEqual({ version: 1, assetType: 'custom_asset', assetId: data.id, userId: 'u5' });
    await expect(service.delete('u5', { id: data.id })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('frees a place under the per-user limit when one is deleted', async () => {
    const limited = new CustomAssetsService(db, () => today, 1);
    const { data } = await limited.create('u7', { name: 'One', currency: 'RUB', price: 1 });
    await expect(limited.create('u7', { name: 'Two', currency: 'RUB', price: 1 })).rejects.toMatchObject({ errors: { custom_assets: [expect.any(String)] } });
    await limited.delete('u7', { id: data.id });
    expect((await limited.create('u7', { name: 'Two', currency: 'RUB', price: 1 })).data.name).toBe('Two');
  });

  it('makes a ticker from a name', () => {
    expect(tickerFromName('Квартира на Тверской, 12')).toBe('КВАРТИРА-НА-ТВЕРСКОЙ');
    expect(tickerFromName('  ')).toBe('CUSTOM');
  });
});
