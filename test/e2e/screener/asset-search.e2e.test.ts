/**
 * The asset search of every type through the gateway (`GET /api/assets`, answered by the screener over
 * `screener.assets.search`), and a deal, a watchlist item and an alert on an asset of each type it returns: the
 * real gateway, screener (demo shares, plus market assets of the other types added as a full rates run adds
 * new listings), portfolios and alerts over NATS and Postgres.
 */
import { randomUUID } from 'node:crypto';
import type { AssetType } from '@invest/contracts';
import { addCatalogAssetsForTest } from '@invest/screener/testing/rates-test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;
const api: AlertsStack['api'] = (...args) => stack.api(...args);
const OWNER = `owner-${randomUUID()}`;
const OTHER = `other-${randomUUID()}`;
/** The asset of each type the tests use: `{ type, id, ticker }`. */
const assets = {} as Record<AssetType, { type: AssetType; id: number; ticker: string; rate: number }>;

beforeAll(async () => {
  stack = await startAlertsStack('assetsrch', { tickers: ['GAZP', 'SIBN', 'SBER'] });
  const db = stack.screener.db;
  const add = async (type: Exclude<AssetType, 'share' | 'custom_asset'>, a: Parameters<typeof addCatalogAssetsForTest>[2][number]) => {
    const ids = await addCatalogAssetsForTest(db, type, [a]);
    assets[type] = { type, id: ids[a.ticker]!, ticker: a.ticker, rate: a.rate };
  };
  await add('bond', { ticker: 'SU26238RMFS4', name: 'ОФЗ-ПД 26238 15/05/2041', shortName: 'ОФЗ 26238', latinName: 'OFZ-PD 26238 15/05/2041', isin: 'RU000A1038V6', currency: 'RUB', rate: 571.2 });
  await add('etf', { ticker: 'TMOS', name: 'Тинькофф Индекс МосБиржи', latinName: 'Tinkoff iMOEX', currency: 'RUB', rate: 6.12 });
  await add('future', { ticker: 'SiH4', name: 'Фьючерсный контракт Si-3.24', shortName: 'Si-3.24', currency: 'RUB', rate: 90350 });
  await add('currency', { ticker: 'CNYRUB_TOM', name: 'Юань - Рубль (завтра)', shortName: 'CNYRUB_TOM', currency: 'RUB', rate: 12.6 });
  await add('token', { ticker: 'TON', coinId: 'the-open-network', name: 'Toncoin', currency: 'USD', rate: 2.21 });
  const [gazp] = await db.query<{ rate: number }>("select current_rate::float8 as rate from assets where type = 'share' and ticker = 'GAZP'");
  assets.share = { type: 'share', id: stack.shareIds.GAZP!, ticker: 'GAZP', rate: gazp!.rate };
  const custom = await api('POST', '/api/custom-assets', { user: OWNER, body: { name: 'Дача в Ёлкино', ticker: 'DACHA', currency: 'RUB', price: '4500000' } });
  expect(custom.status, custom.text).toBe(201);
  assets.custom_asset = { type: 'custom_asset', id: custom.body.data.id, ticker: 'DACHA', rate: 4_500_000 };
}, 180_000);
afterAll(async () => {
  await stack?.close();
});

const search = async (query: Record<string, string>, user?: string) => {
  const res = await api('GET', `/api/assets?${new URLSearchParams(query)}`, user ? { user } : {});
  expect(res.status, res.text).toBe(200);
  return res.body.data as { id: number; type: AssetType; ticker: string; name: string; isin: string | null; currency: string; current_rate: number | null }[];
};

describe('GET /api/assets', () => {
  it('puts the exact ticker first: gazp finds GAZP before SIBN (Gazprom neft)', async () => {
    const rows = await search({ search: 'gazp' });
    expect(rows[0]).toMatchObject({ ticker: 'GAZP', type: 'share', id: stack.shareIds.GAZP, currency: 'RUB' });
    expect(rows.map((r) => r.ticker)).toContain('SIBN');
    expect(rows.findIndex((r) => r.ticker === 'SIBN')).toBeGreaterThan(0);
    // Name words in Cyrillic, any case: every word of the search.
    expect((await search({ search: 'ГАЗПРОМ нефть' }))[0]).toMatchObject({ ticker: 'SIBN' });
    // A ticker prefix before names that only contain it.
    expect((await search({ search: 'sbe' }))[0]).toMatchObject({ ticker: 'SBER' });
  });

  it('finds every market type, by ticker, name or ISIN, and narrows to one type', async () => {
    const cases: [AssetType, string][] = [
      ['bond', 'офз 26238'],
      ['bond', 'RU000A1038V6'],
      ['etf', 'tmos'],
      ['etf', 'тинькофф мосбиржи'],
      ['future', 'si-3'],
      ['currency', 'юань'],
      ['token', 'toncoin'],
      ['token', 'TON'],
    ];
    for (const [type, term] of cases) {
      const rows = await search({ search: term });
      expect(rows[0], `${term} → ${type}`).toMatchObject({ type, id: assets[type].id, ticker: assets[type].ticker });
      expect(rows[0]!.current_rate).toBeCloseTo(assets[type].rate, 6);
    }
    // Narrowed: only the asked type; a term of another type finds nothing.
    const bonds = await search({ search: 'офз', type: 'bond' });
    expect(bonds.length).toBeGreaterThan(0);
    expect(new Set(bonds.map((r) => r.type))).toEqual(new Set(['bond']));
    expect(await search({ search: 'gazp', type: 'token' })).toEqual([]);
    // Without a search: assets of the type, by ticker.
    expect((await search({ type: 'future' })).map((r) => r.ticker)).toEqual(['SiH4']);
  });

  it("finds a custom asset only for its owner (ё = е), never for another user or without a token", async () => {
    const own = await search({ search: 'елкино' }, OWNER);
    expect(own[0]).toMatchObject({ type: 'custom_asset', id: assets.custom_asset.id, ticker: 'DACHA', name: 'Дача в Ёлкино', currency: 'RUB', current_rate: 4_500_000 });
    expect(await search({ search: 'dacha' }, OTHER)).toEqual([]);
    expect(await search({ search: 'dacha' })).toEqual([]);
    expect(await search({ type: 'custom_asset' }, OTHER)).toEqual([]);
    expect(await search({ type: 'custom_asset' })).toEqual([]);
    expect((await search({ type: 'custom_asset' }, OWNER)).map((r) => r.id)).toEqual([assets.custom_asset.id]);
  });

  it('answers at most `limit` assets', async () => {
    expect(await search({ search: 'а', limit: '3' })).toHaveLength(3);
    expect((await search({ search: 'а' })).length).toBeLessThanOrEqual(20);
    expect((await search({ search: 'а', limit: '50' })).length).toBeGreaterThan(20);
  });

  it('refuses a bad type, limit or search with a 422 naming the field, and a bad token with a 401', async () => {
    const badType = await api('GET', '/api/assets?search=gazp&type=stock');
    expect(badType.status).toBe(422);
    expect(badType.body.errors.type[0]).toMatch(/type is invalid.*share, bond/);
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=51', 'limit'],
      ['limit=ten', 'limit'],
      [`search=${'x'.repeat(101)}`, 'search'],
      ['type=share&type=bond', 'type'],
    ] as const) {
      const res = await api('GET', `/api/assets?${query}`);
      expect(res.status, query).toBe(422);
      expect(Object.keys(res.body.errors), query).toContain(field);
    }
    const forged = await api('GET', '/api/assets?search=gazp', { headers: { authorization: 'Bearer not-a-token' } });
    expect(forged.status).toBe(401);
  });
});

describe('a deal, a watchlist item and an alert on an asset of any type', () => {
  const TYPES: AssetType[] = ['share', 'bond', 'etf', 'future', 'currency', 'token', 'custom_asset'];

  it('creates a deal and a watchlist item on each type the search returns', async () => {
    const portfolio = await api('POST', '/api/portfolios', { user: OWNER, body: { name: 'Everything', currency_code: 'RUB' } });
    expect(portfolio.status, portfolio.text).toBe(201);
    const watchlist = await api('POST', '/api/watchlists', { user: OWNER, body: { name: 'Everything' } });
    expect(watchlist.status, watchlist.text).toBe(201);
    for (const type of TYPES) {
      const [found] = await search({ search: assets[type].ticker, type }, OWNER);
      expect(found, type).toMatchObject({ type, id: assets[type].id });
      const assetable = { type: found!.type, id: found!.id };
      const deal = await api('POST', `/api/portfolios/${portfolio.body.data.id}/deals`, {
        user: OWNER,
        body: { type: 'buy', assetable, quantity: '2', price: String(assets[type].rate), commission: '0', date: '2024-02-01' },
      });
      expect(deal.status, `${type}: ${deal.text}`).toBe(201);
      const item = await api('POST', `/api/watchlists/${watchlist.body.data.id}/items`, { user: OWNER, body: { assetable } });
      expect(item.status, `${type}: ${item.text}`).toBe(201);
    }
    const deals = await api('GET', `/api/portfolios/${portfolio.body.data.id}/deals`, { user: OWNER });
    expect(new Set(deals.body.data.map((d: { assetable: { type: string } }) => d.assetable.type))).toEqual(new Set(TYPES));
    // Another user's custom asset stays unknown to a deal, as before.
    const theirs = await api('POST', '/api/portfolios', { user: OTHER, body: { name: 'Theirs', currency_code: 'RUB' } });
    const refused = await api('POST', `/api/portfolios/${theirs.body.data.id}/deals`, {
      user: OTHER,
      body: { type: 'buy', assetable: { type: 'custom_asset', id: assets.custom_asset.id }, quantity: '1', price: '1', commission: '0', date: '2024-02-01' },
    });
    expect(refused.status).toBe(422);
  });

  it('creates a price-target and a price-change alert on each type', async () => {
    for (const type of TYPES) {
      // A free plan keeps 3 active alerts: one user per type.
      const user = type === 'custom_asset' ? OWNER : `alerts-${type}-${randomUUID().slice(0, 8)}`;
      const { id } = assets[type];
      const target = await api('POST', '/api/price-alert', { user, body: { target_price: String(assets[type].rate * 2), assetable: { type, id }, direction: 'above', name: `${type} doubles` } });
      expect(target.status, `${type}: ${target.text}`).toBe(201);
      const change = await api('POST', '/api/price-change-alert', {
        user,
        body: { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: id, assetable_type_simplified: type, name: `${type} moves` },
      });
      expect(change.status, `${type}: ${change.text}`).toBe(201);
    }
    const list = await api('GET', '/api/notifications', { user: OWNER });
    expect(list.body.data.some((n: { target: { type: string; ticker?: string } }) => n.target.ticker === 'DACHA')).toBe(true);
  });
});
