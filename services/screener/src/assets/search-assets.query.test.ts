import { searchAssetsQuerySchema, type SearchAssetsQueryInput } from '@invest/contracts';
import type { Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { SEARCH_CANDIDATES, searchAssets } from './search-assets.query.js';

let db: Db;
useTestDatabase('scr_asset_search', migrations, (d) => (db = d));

const ids: Record<string, number> = {};
async function insert(type: string, ticker: string, name: string, more: { latin?: string; isin?: string; owner?: string; deleting?: boolean } = {}): Promise<void> {
  const [row] = await db.query<{ id: string }>(
    'insert into assets (type, ticker, name, latin_name, isin, currency, current_rate, source_id) values ($1, $2, $3, $4, $5, $6, 10, $7) returning id::text',
    [type, ticker, name, more.latin ?? null, more.isin ?? null, 'RUB', type === 'token' ? ticker.toLowerCase() : null],
  );
  ids[`${type}:${ticker}:${more.owner ?? ''}`] = Number(row!.id);
  if (type === 'custom_asset') {
    await db.query('insert into custom_assets (asset_id, owner_user_id, deleting_since) values ($1, $2, $3)', [row!.id, more.owner, more.deleting ? new Date() : null]);
  }
}

beforeAll(async () => {
  await insert('share', 'GAZP', '"Газпром" (ПАО) ао', { latin: 'Gazprom', isin: 'RU0007661625' });
  await insert('share', 'SIBN', 'Газпром нефть ПАО ао', { latin: 'Gazprom neft' });
  await insert('bond', 'RU000A0JXN05', 'ГазпромКапитал ООО 04');
  await insert('token', 'BTC', 'Bitcoin');
  await insert('currency', 'USD000UTSTOM', 'USDRUB_TOM - USD/РУБ');
  await insert('custom_asset', 'DACHA', 'Дача в Ёлкино', { owner: 'alice' });
  await insert('custom_asset', 'DACHA', 'Дача Боба', { owner: 'bob' });
  await insert('custom_asset', 'GONE', 'Удаляемая дача', { owner: 'alice', deleting: true });
  // More assets that only contain the search inside a word than the database hands over: the best still come first.
  await db.query(
    `insert into assets (type, ticker, name, currency) select 'bond', 'ZZ' || g, 'Облигация Мегазайм ' || g, 'RUB' from generate_series(1, $1::int) g`,
    [SEARCH_CANDIDATES + 50],
  );
});

const run = (query: SearchAssetsQueryInput, userId?: string) => searchAssets(db, searchAssetsQuerySchema.parse(query), userId);
const tickers = async (query: SearchAssetsQueryInput, userId?: string) => (await run(query, userId)).data.map((r) => `${r.type}:${r.ticker}`);

describe('searchAssets', () => {
  it('ranks the exact ticker first, then name words, across types', async () => {
    expect(await tickers({ search: 'gazp' })).toEqual(['share:GAZP', 'share:SIBN']);
    expect((await tickers({ search: 'газпром', limit: 3 }))).toEqual(['share:GAZP', 'share:SIBN', 'bond:RU000A0JXN05']);
    expect(await tickers({ search: 'USD/РУБ' })).toEqual(['currency:USD000UTSTOM']);
    expect(await tickers({ search: 'RU0007661625' })).toEqual(['share:GAZP']);
  });

  it('keeps the best matches when a short search matches more rows than the candidates', async () => {
    expect(await tickers({ search: 'газ', limit: 4 })).toEqual(['share:GAZP', 'share:SIBN', 'bond:RU000A0JXN05', 'bond:ZZ1']);
    expect((await run({ search: 'газ', limit: 50 })).data).toHaveLength(50);
  });

  it('answers the row fields of the contract', async () => {
    expect((await run({ search: 'btc' })).data).toEqual([
      { id: ids['token:BTC:'], type: 'token', ticker: 'BTC', name: 'Bitcoin', isin: null, currency: 'RUB', current_rate: 10, price_change_percentage_24h: null, rate_updated_at: null },
    ]);
  });

  it('narrows to a type', async () => {
    expect(await tickers({ search: 'газпром', type: 'share' })).toEqual(['share:GAZP', 'share:SIBN']);
    expect(await tickers({ type: 'token' })).toEqual(['token:BTC']);
  });

  it("finds custom assets only for their owner, not one being deleted, none without a user (ё = е)", async () => {
    expect(await tickers({ search: 'dacha' }, 'alice')).toEqual(['custom_asset:DACHA']);
    expect((await run({ search: 'елкино' }, 'alice')).data[0]!.id).toBe(ids['custom_asset:DACHA:alice']);
    expect((await run({ search: 'dacha' }, 'bob')).data.map((r) => r.id)).toEqual([ids['custom_asset:DACHA:bob']]);
    expect(await tickers({ search: 'dacha' })).toEqual([]);
    expect(await tickers({ search: 'gone' }, 'alice')).toEqual([]);
    expect(await tickers({ type: 'custom_asset' }, 'carol')).toEqual([]);
  });

  it('matches LIKE and regular expression characters literally', async () => {
    for (const term of ['%', '\\', '((', '.*', '[', '%%']) expect(await tickers({ search: term }), term).toEqual([]);
    expect(await tickers({ search: '_tom' })).toEqual(['currency:USD000UTSTOM']);
    expect(await tickers({ search: '(пао)' })).toEqual(['share:GAZP', 'share:SIBN']);
  });
});
