import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CustomAssetReply,
  CustomAssetSubjects,
  ErrorCode,
  type GetAssetsReply,
  type ListCountriesReply,
  type ListShareCategoriesReply,
  type ListSharesReply,
  SHARE_SORT_COLUMNS,
  type ShareRow,
  Subjects,
  shareRowSchema,
} from '@invest/contracts';
import { RpcClient, ServiceError, createLogger, streamNameOf } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScreenerApp, createScreenerApp } from '../src/screener.app.js';

// ---- Expectations derived from the raw capture with hand-written lookups (independent of the parser). ----
type Block = { columns: string[]; data: unknown[][] };
const dataDir = join(import.meta.dirname, '..', 'data');
const capture = JSON.parse(readFileSync(join(dataDir, 'moex-shares-2024-02-15.json'), 'utf8')) as Record<string, Block>;
const demoDividends = JSON.parse(readFileSync(join(dataDir, 'demo-dividends.json'), 'utf8')) as {
  dividends: { ticker: string; payments: { value: number }[] }[];
};

function rowsOf(block: Block) {
  return block.data.map((r) => Object.fromEntries(block.columns.map((c, i) => [c, r[i]])) as Record<string, unknown>);
}
const securities = rowsOf(capture.securities!);
const marketdata = rowsOf(capture.marketdata!);
const SHARE_TYPES: Record<string, string> = { '1': 'ordinary', '2': 'preferred', D: 'depositary-receipt' };
const captureShares = securities.filter((s) => (s.BOARDID === 'TQBR' || s.BOARDID === 'TQPI') && String(s.SECTYPE) in SHARE_TYPES);
const md = (secid: string, board = 'TQBR') => marketdata.find((m) => m.SECID === secid && m.BOARDID === board)!;
const countBy = <T>(items: T[], key: (t: T) => string) =>
  items.reduce<Record<string, number>>((acc, t) => ({ ...acc, [key(t)]: (acc[key(t)] ?? 0) + 1 }), {});
/** Tickers whose ticker, names or ISIN contain `term`, case-insensitively. */
const captureSearch = (term: string) =>
  captureShares
    .filter((s) => [s.SECID, s.SECNAME, s.SHORTNAME, s.LATNAME, s.ISIN].some((v) => typeof v === 'string' && v.toLowerCase().includes(term.toLowerCase())))
    .map((s) => s.SECID as string)
    .sort();

/** One more share added by the test: no market data at all, so every sort column has a null. */
const BARE = { ticker: 'ZZBARE', name: 'Голая акция' };

describe('screener over NATS (demo data)', () => {
  let db: { url: string; drop(): Promise<void> };
  let screener: ScreenerApp;
  let rpc: RpcClient;
  const busPrefix = `${uniqueName('scr')}.`;
  const logger = createLogger('screener', 'silent');

  const start = () => createScreenerApp({ databaseUrl: db.url, natsUrl: testNatsUrl(), busPrefix, logger, marketTz: 'Europe/Moscow' });
  const list = (data: Record<string, unknown>) => rpc.request<ListSharesReply>(Subjects.screener.sharesList, data);
  const rejection = async (data: Record<string, unknown>) => {
    const err = await list(data).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  };
  const allRows = async (query: Record<string, unknown>) => {
    const rows: ShareRow[] = [];
    for (let page = 1; ; page++) {
      const reply = await list({ ...query, per_page: 100, page });
      rows.push(...reply.data);
      if (page >= reply.meta.last_page) return rows;
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase('scr_e2e');
    screener = await start();
    await screener.db.query(
      `with a as (insert into assets (type, ticker, name, currency) values ('share', $1, $2, 'RUB') returning id)
       insert into shares (asset_id, category_id) select a.id, (select id from share_categories where slug = 'ordinary') from a`,
      [BARE.ticker, BARE.name],
    );
    rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'screener-e2e', defaultTimeoutMs: 10_000, busPrefix });
    await rpc.connect();
  });
  afterAll(async () => {
    await rpc?.close();
    // The app created this prefix's event streams (and published the demo rates): leave nothing behind.
    for (const ctx of ['market', 'portfolios'] as const) await screener?.bus.jsm.streams.delete(streamNameOf(screener.bus, ctx)).catch(() => undefined);
    await screener?.close();
    await db?.drop();
  });

  it('answers the health ping', async () => {
    expect(await rpc.request(Subjects.healthPing('screener'), {})).toMatchObject({ service: 'screener', ok: true });
  });

  it('lists every main-board share, with the default sort market_cap desc', async () => {
    const page = await list({});
    expect(page.meta).toEqual({ current_page: 1, per_page: 20, total: captureShares.length + 1, last_page: Math.ceil((captureShares.length + 1) / 20), from: 1, to: 20 });
    for (const row of page.data) shareRowSchema.parse(row);
    // The largest issue by ISSUECAPITALIZATION in the capture comes first.
    const top = captureShares
      .map((s) => ({ secid: s.SECID, cap: md(String(s.SECID), String(s.BOARDID)).ISSUECAPITALIZATION as number | null }))
      .filter((x) => x.cap !== null)
      .sort((a, b) => b.cap! - a.cap!)[0]!;
    expect(page.data[0]!.asset).toBe(top.secid);
  });

  it('carries the capture values of a share and a hand-computed dividend yield', async () => {
    const [sber] = (await list({ search: 'RU0009029540' })).data;
    const m = md('SBER');
    expect(sber).toMatchObject({
      asset: 'SBER',
      isin: 'RU0009029540',
      current_rate: m.LAST,
      price_change_percentage_24h: m.LASTTOPREVPRICE,
      price_change_percentage_7d: null,
      market_cap: m.ISSUECAPITALIZATION,
      trading_volume: m.VALTODAY,
      category: { slug: 'ordinary', name: 'Ordinary shares' },
      country: { code: 'RU', name: 'Russia' },
      currency: 'RUB',
      updated_at: '2024-02-15T14:54:06.000Z',
    });
    // Demo dividend 33.30 RUB placed within the next 12 months; price 289.83.
    expect(sber!.dividend_yield).toBeCloseTo((33.3 / 289.83) * 100, 9);
    // TRNFP did not trade: the price is the official current price.
    const [trnfp] = (await list({ search: 'TRNFP' })).data;
    expect(trnfp!.current_rate).toBe(md('TRNFP').LCURRENTPRICE);
    // GAZP is known to pay nothing (0); AFKS is not in the demo dividends (unknown: null).
    expect((await list({ search: 'GAZP' })).data.find((r) => r.asset === 'GAZP')!.dividend_yield).toBe(0);
    expect((await list({ search: 'AFKS' })).data[0]!.dividend_yield).toBeNull();
  });

  for (const sort of SHARE_SORT_COLUMNS) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`sorts by ${sort} ${direction} across pages, nulls last, ties by id`, async () => {
        const rows = await allRows({ sort, direction });
        expect(rows).toHaveLength(captureShares.length + 1);
        expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
        const values = rows.map((r) => r[sort]);
        const firstNull = values.indexOf(null);
        expect(firstNull).toBeGreaterThanOrEqual(0); // ZZBARE has no value for any column
        expect(values.slice(firstNull).every((v) => v === null)).toBe(true);
        for (let i = 1; i < rows.length; i++) {
          const [a, b] = [values[i - 1]!, values[i]!];
          if (a === null || b === null) continue;
          if (a === b) expect(rows[i - 1]!.id).toBeLessThan(rows[i]!.id);
          else expect(direction === 'asc' ? a < b : a > b).toBe(true);
        }
        expect(rows.slice(firstNull).map((r) => r.id)).toEqual(
          rows
            .slice(firstNull)
            .map((r) => r.id)
            .sort((x, y) => x - y),
        );
      });
    }
  }

  it('sorts by dividend yield with the demo payers on top', async () => {
    const top = (await list({ sort: 'dividend_yield', per_page: 3 })).data;
    // SNGSP: 12.84 / 59.9 ≈ 21.4 % is the highest demo yield at the capture's prices.
    expect(top[0]!.asset).toBe('SNGSP');
    expect(top[0]!.dividend_yield).toBeCloseTo((12.84 / 59.9) * 100, 9);
    const payers = demoDividends.dividends.filter((d) => d.payments.length > 0).length;
    const withYield = (await allRows({ sort: 'dividend_yield' })).filter((r) => r.dividend_yield !== null && r.dividend_yield > 0);
    expect(withYield).toHaveLength(payers);
  });

  it('filters by category slug or id', async () => {
    const categories = await rpc.request<ListShareCategoriesReply>(Subjects.screener.categoriesList, {});
    const preferred = categories.data.find((c) => c.slug === 'preferred')!;
    const expected = captureShares.filter((s) => s.SECTYPE === '2').length;
    const bySlug = await allRows({ category: 'preferred' });
    const byId = await allRows({ category: String(preferred.id) });
    expect(bySlug).toHaveLength(expected);
    expect(byId.map((r) => r.id)).toEqual(bySlug.map((r) => r.id));
    expect(bySlug.every((r) => r.category.slug === 'preferred')).toBe(true);
    expect((await list({ category: 'no-such-category' })).meta.total).toBe(0);
  });

  it('filters by country code, in any case', async () => {
    const us = await allRows({ country_code: 'us' });
    expect(us).toHaveLength(captureShares.filter((s) => String(s.ISIN).startsWith('US')).length);
    expect(us.every((r) => r.country?.code === 'US' && r.country.name === 'United States')).toBe(true);
    const combined = await allRows({ country_code: 'RU', category: 'preferred' });
    expect(combined).toHaveLength(captureShares.filter((s) => String(s.ISIN).startsWith('RU') && s.SECTYPE === '2').length);
    expect((await list({ country_code: 'ZW' })).meta.total).toBe(0);
  });

  it('searches in Cyrillic and Latin, by ticker, name and ISIN', async () => {
    const found = async (search: string) => (await allRows({ search })).map((r) => r.asset).sort();
    expect(await found('сбербанк')).toEqual(captureSearch('сбербанк'));
    expect(await found('СБЕРБАНК')).toEqual(['SBER', 'SBERP']);
    expect(await found('Sberbank')).toEqual(['SBER', 'SBERP']);
    expect(await found('газпром')).toEqual(captureSearch('газпром'));
    expect((await found('газпром')).length).toBeGreaterThan(1);
    expect(await found('gazprom')).toEqual(captureSearch('gazprom'));
    expect(await found('lkoh')).toEqual(['LKOH']);
    expect(await found('US69269L1044')).toEqual(['OZON']);
    expect(await found('%')).toEqual([]);
  });

  it('reports paging meta, also past the last page', async () => {
    const total = captureShares.length + 1;
    const lastPage = Math.ceil(total / 100);
    const last = await list({ per_page: '100', page: String(lastPage) });
    expect(last.meta).toEqual({ current_page: lastPage, per_page: 100, total, last_page: lastPage, from: (lastPage - 1) * 100 + 1, to: total });
    expect(last.data).toHaveLength(total - (lastPage - 1) * 100);
    const past = await list({ per_page: 100, page: lastPage + 1 });
    expect(past).toEqual({ data: [], meta: { current_page: lastPage + 1, per_page: 100, total, last_page: lastPage, from: null, to: null } });
  });

  it.each([
    [{ sort: 'name' }, 'sort'],
    [{ direction: 'sideways' }, 'direction'],
    [{ page: 0 }, 'page'],
    [{ page: 'abc' }, 'page'],
    [{ per_page: 101 }, 'per_page'],
    [{ per_page: 0 }, 'per_page'],
    [{ country_code: 'RUS' }, 'country_code'],
    [{ country_code: '12' }, 'country_code'],
    [{ category: 'not a slug!' }, 'category'],
    [{ search: 'sber\u0000' }, 'search'],
    [{ search: 'x'.repeat(101) }, 'search'],
  ])('rejects %j naming %s', async (data, field) => {
    const err = await rejection(data);
    expect(err.code).toBe(ErrorCode.Validation);
    expect(Object.keys(err.errors ?? {})).toEqual([field]);
  });

  it('lists categories and countries with their share counts', async () => {
    const categories = await rpc.request<ListShareCategoriesReply>(Subjects.screener.categoriesList, {});
    const bySecType = countBy(captureShares, (s) => SHARE_TYPES[String(s.SECTYPE)]!);
    expect(categories.data.map(({ slug, name, shares_count }) => ({ slug, name, shares_count }))).toEqual([
      { slug: 'ordinary', name: 'Ordinary shares', shares_count: bySecType.ordinary! + 1 },
      { slug: 'preferred', name: 'Preferred shares', shares_count: bySecType.preferred },
      { slug: 'depositary-receipt', name: 'Depositary receipts', shares_count: bySecType['depositary-receipt'] },
    ]);
    const countries = await rpc.request<ListCountriesReply>(Subjects.screener.countriesList, {});
    const byPrefix = countBy(captureShares, (s) => String(s.ISIN).slice(0, 2));
    expect(Object.fromEntries(countries.data.map((c) => [c.code, c.shares_count]))).toEqual(byPrefix);
    expect(countries.data.map((c) => c.name)).toEqual([...countries.data.map((c) => c.name)].sort());
    expect(countries.data.find((c) => c.code === 'RU')?.name).toBe('Russia');
  });

  it('looks assets up by reference', async () => {
    const [sber] = (await list({ search: 'RU0009029540' })).data;
    const reply = await rpc.request<GetAssetsReply>(Subjects.screener.assetsGet, {
      refs: [
        { type: 'share', id: sber!.id },
        { type: 'bond', id: sber!.id },
        { type: 'share', id: 999_999 },
      ],
    });
    expect(reply.data).toEqual([
      {
        id: sber!.id,
        type: 'share',
        ticker: 'SBER',
        name: sber!.name,
        currency: 'RUB',
        current_rate: md('SBER').LAST,
        price_change_percentage_24h: md('SBER').LASTTOPREVPRICE,
        rate_updated_at: '2024-02-15T14:54:06.000Z',
      },
    ]);
    const err = await rpc.request(Subjects.screener.assetsGet, { refs: [] }).catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe(ErrorCode.Validation);
  });

  it("never describes another user's custom asset by reference", async () => {
    const { data: flat } = await rpc.request<CustomAssetReply>(
      CustomAssetSubjects.create,
      { name: 'Private flat', currency: 'RUB', price: 100 },
      { userId: 'owner-1' },
    );
    const ask = (userId?: string) =>
      rpc.request<GetAssetsReply>(Subjects.screener.assetsGet, { refs: [{ type: 'custom_asset', id: flat.id }] }, userId ? { userId } : {});
    expect((await ask('owner-1')).data.map((a) => a.id)).toEqual([flat.id]);
    expect((await ask('intruder')).data).toEqual([]);
    expect((await ask()).data).toEqual([]);
  });

  it('keeps its data over a restart without loading the demo data again', async () => {
    const before = (await list({})).meta.total;
    await screener.db.query(`update assets set current_rate = 1 where ticker = 'SBER'`);
    await screener.close();
    screener = await start();
    expect((await list({})).meta.total).toBe(before);
    expect((await list({ search: 'RU0009029540' })).data[0]!.current_rate).toBe(1);
  });
});

describe('screener without demo data', () => {
  it('starts empty', async () => {
    const db = await createTestDatabase('scr_empty');
    const busPrefix = `${uniqueName('scr')}.`;
    const app = await createScreenerApp({ databaseUrl: db.url, natsUrl: testNatsUrl(), busPrefix, logger: createLogger('screener', 'silent'), loadDemoData: false });
    const rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'screener-e2e', defaultTimeoutMs: 10_000, busPrefix });
    try {
      await rpc.connect();
      expect(await rpc.request(Subjects.screener.sharesList, {})).toEqual({
        data: [],
        meta: { current_page: 1, per_page: 20, total: 0, last_page: 1, from: null, to: null },
      });
      const categories = await rpc.request<ListShareCategoriesReply>(Subjects.screener.categoriesList, {});
      expect(categories.data.map((c) => c.shares_count)).toEqual([0, 0, 0]);
      expect(await rpc.request(Subjects.screener.countriesList, {})).toEqual({ data: [] });
    } finally {
      await rpc.close();
      for (const ctx of ['market', 'portfolios'] as const) await app.bus.jsm.streams.delete(streamNameOf(app.bus, ctx)).catch(() => undefined);
      await app.close();
      await db.drop();
    }
  });
});
