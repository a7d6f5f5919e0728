import type { AssetUse } from '@invest/contracts';
import { type Db, openDatabase } from '@invest/platform/db/database';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAssets } from '../assets/get-assets.query.js';
import { migrations } from '../migrations/index.js';
import type { AssetUsesSource } from './asset-uses.client.js';
import { CustomAssetsService, refreshCustomAssetChanges, tickerFromName } from './custom-assets.service.js';

/** The portfolios service's answer when no portfolio or watchlist uses the asset (its real answer: gateway's custom-assets e2e). */
const noUses: AssetUsesSource = { usesOf: () => Promise.resolve([]) };

describe('custom assets', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let today = '2024-03-01';
  let service: CustomAssetsService;
  beforeAll(async () => {
    const t = await createTestDatabase('scr_custom');
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations });
    service = new CustomAssetsService(db, () => today, noUses);
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

  it('hides the asset while portfolios is asked, and shows it again when portfolios names a use or does not answer', async () => {
    const { data } = await service.create('u8', { name: 'Barn', currency: 'RUB', price: 5 });
    const seenWhileAsked: unknown[] = [];
    // What portfolios answers (its real answer: test/e2e/screener/custom-assets.e2e.test.ts); meanwhile the asset is hidden.
    const answering = (answer: () => Promise<AssetUse[]>): AssetUsesSource => ({
      usesOf: async (asset) => {
        seenWhileAsked.push({ asset, listed: (await service.list('u8')).data.length, got: (await getAssets(db, [asset], 'u8')).data.length });
        return answer();
      },
    });
    const used = new CustomAssetsService(db, () => today, answering(() => Promise.resolve([{ type: 'watchlist', id: 4 }])));
    await expect(used.delete('u8', { id: data.id })).rejects.toMatchObject({
      code: 'conflict',
      message: 'The custom asset is in use (watchlist 4); remove it from there first.',
      extra: { used_in: [{ type: 'watchlist', id: 4 }] },
    });
    const silent = new CustomAssetsService(db, () => today, answering(() => Promise.reject(new Error('no responders'))));
    await expect(silent.delete('u8', { id: data.id })).rejects.toMatchObject({ code: 'unavailable' });
    expect(seenWhileAsked).toEqual([
      { asset: { type: 'custom_asset', id: data.id }, listed: 0, got: 0 },
      { asset: { type: 'custom_asset', id: data.id }, listed: 0, got: 0 },
    ]);
    expect((await service.list('u8')).data.map((a) => a.id)).toEqual([data.id]);
    expect(await db.query(`select 1 from es_events where type = 'AssetDeleted' and (data->>'assetId')::bigint = $1`, [data.id])).toEqual([]);
  });

  it('completes a deletion a stopped process left half way: deleted without uses, shown again with one, kept hidden without an answer', async () => {
    const made = await Promise.all(['Shed', 'Hut', 'Tent', 'Yurt'].map((name) => service.create('u9', { name, currency: 'RUB', price: 1 })));
    const [shed, hut, tent, yurt] = made.map((m) => m.data.id);
    // Hidden two minutes ago, as a deletion does before it asks portfolios; the yurt a moment ago (a deletion still under way).
    await db.query(`update custom_assets set deleting_since = now() - interval '2 minutes' where asset_id = any($1::bigint[])`, [[shed, hut, tent]]);
    await db.query(`update custom_assets set deleting_since = now() where asset_id = $1`, [yurt]);
    const answers = new Map<number, () => Promise<AssetUse[]>>([
      [shed!, () => Promise.resolve([])],
      [hut!, () => Promise.resolve([{ type: 'portfolio', id: 9 }])],
      [tent!, () => Promise.reject(new Error('timeout'))],
    ]);
    const asked: number[] = [];
    const recovering = new CustomAssetsService(db, () => today, {
      usesOf: (asset) => {
        asked.push(asset.id);
        return answers.get(asset.id)!();
      },
    });
    expect(await recovering.finishPendingDeletions(new Date(Date.now() - 60_000))).toEqual({ pending: 3, deleted: 1, restored: 1, unanswered: 1 });
    expect(asked.sort((a, b) => a - b)).toEqual([shed, hut, tent].sort((a, b) => a! - b!));
    expect(await db.query('select 1 from assets where id = $1', [shed])).toEqual([]);
    expect(await db.query(`select (data->>'userId') as owner from es_events where type = 'AssetDeleted' and (data->>'assetId')::bigint = $1`, [shed])).toEqual([{ owner: 'u9' }]);
    expect((await service.list('u9')).data.map((a) => a.id)).toEqual([hut]);
    const hidden = await db.query<{ id: string }>('select asset_id::text as id from custom_assets where deleting_since is not null and asset_id = any($1::bigint[]) order by asset_id', [[tent, yurt]]);
    // Created side by side: their ids come in any order.
    expect(hidden.map((h) => Number(h.id))).toEqual([tent!, yurt!].sort((a, b) => a - b));
  });

  it('frees a place under the per-user limit when one is deleted', async () => {
    const limited = new CustomAssetsService(db, () => today, noUses, 1);
    const { data } = await limited.create('u7', { name: 'One', currency: 'RUB', price: 1 });
    await expect(limited.create('u7', { name: 'Two', currency: 'RUB', price: 1 })).rejects.toMatchObject({ errors: { custom_assets: [expect.any(String)] } });
    await limited.delete('u7', { id: data.id });
    expect((await limited.create('u7', { name: 'Two', currency: 'RUB', price: 1 })).data.name).toBe('Two');
  });

  it('makes a ticker from a name', () => {
    expect(tickerFromName('Квартира на Тверской, 12')).toBe('КВАРТИРА-НА-ТВЕРСКОЙ');
    expect(tickerFromName('  ')).toBe('CUSTOM');
    // U+1D400 is two UTF-16 units: the cut at 20 units must not keep half of one (stored as U+FFFD).
    expect(tickerFromName('A' + '\u{1D400}'.repeat(10))).toBe('A' + '\u{1D400}'.repeat(9));
    expect(tickerFromName('\u{1D400}'.repeat(10))).toBe('\u{1D400}'.repeat(10));
  });
});
