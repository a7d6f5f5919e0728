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

  it('makes a ticker from a name', () => {
    expect(tickerFromName('Квартира на Тверской, 12')).toBe('КВАРТИРА-НА-ТВЕРСКОЙ');
    expect(tickerFromName('  ')).toBe('CUSTOM');
  });
});
