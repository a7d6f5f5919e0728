import { type ListSharesQuery, type ShareRow, listSharesQuerySchema } from '@invest/contracts';
import { type Db, openDatabase } from '@invest/platform/db/database';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { buildListSharesSql, escapeLike, listShares } from './list-shares.query.js';

/** The market date the dataset is built around: a leap day, to exercise the end of the 12-month window. */
const TODAY = '2024-02-29';

interface DividendRecord {
  recordDate: string;
  value: number;
  currency: string;
}

interface Fixture {
  ticker: string;
  name: string;
  latin?: string;
  isin?: string | null;
  currency?: string;
  price: number | null;
  cap: number | null;
  volume: number | null;
  d24: number | null;
  d7: number | null;
  category: 'ordinary' | 'preferred' | 'depositary-receipt';
  country: 'RU' | 'KZ' | null;
  /** null: dividends never loaded. */
  dividends: DividendRecord[] | null;
}

const rub = (recordDate: string, value: number): DividendRecord => ({ recordDate, value, currency: 'RUB' });

const FIXTURES: Fixture[] = [
  {
    ticker: 'ALFA', name: 'Альфа ао', latin: 'Alfa', isin: 'RU000ALFA001', price: 100, cap: 1000, volume: 50, d24: 1.5, d7: 3,
    category: 'ordinary', country: 'RU',
    // In the window: today (5) and 2025-02-27 (3) → 8 %. Out: yesterday, 2025-02-28 (today + 12 months), USD.
    dividends: [rub('2024-02-29', 5), rub('2025-02-27', 3), rub('2024-02-28', 100), rub('2025-02-28', 100), { recordDate: '2024-06-01', value: 7, currency: 'USD' }],
  },
  { ticker: 'BETA', name: 'Бета ап', latin: 'Beta (pref)', isin: 'RU000BETA002', price: 200, cap: null, volume: 10, d24: -2, d7: null, category: 'preferred', country: 'RU', dividends: [] },
  { ticker: 'GAMA', name: 'Гамма ао', latin: 'Gamma', isin: 'KZ000GAMA003', price: null, cap: 500, volume: null, d24: null, d7: -1, category: 'ordinary', country: 'KZ', dividends: [rub('2024-06-01', 1)] },
  { ticker: 'DELT', name: 'Дельта-гдр', latin: 'GDR Delta', isin: null, price: 50, cap: 1000, volume: 50, d24: 0, d7: 0.5, category: 'depositary-receipt', country: null, dividends: null },
  { ticker: 'EPSI', name: '100% Ёлка_фонд', latin: 'Yolka fund', isin: 'RU000EPSI005', price: 40, cap: 20, volume: 5, d24: 1.5, d7: 3, category: 'ordinary', country: 'RU', dividends: [rub('2024-09-01', 2)] },
  { ticker: 'ZETA', name: 'Зета ао', latin: 'Zeta abc', isin: 'RU000ZETA006', price: 0, cap: null, volume: 0, d24: null, d7: null, category: 'ordinary', country: 'RU', dividends: [rub('2024-06-01', 1)] },
];

/** Yields computed by hand for TODAY. */
const HAND_YIELDS: Record<string, number | null> = {
  ALFA: 8, // (5 + 3) / 100 × 100
  BETA: 0, // known: none
  GAMA: null, // no price
  DELT: null, // dividends unknown
  EPSI: 5, // 2 / 40 × 100
  ZETA: null, // price 0
};

const q = (input: Record<string, unknown> = {}): ListSharesQuery => listSharesQuerySchema.parse(input);

describe('buildListSharesSql / listShares', () => {
  let db: Db;
  let drop: () => Promise<void>;
  const ids = new Map<string, number>();

  beforeAll(async () => {
    const t = await createTestDatabase('scr_list');
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations });
    await db.query(`insert into countries (code, name) values ('RU', 'Russia'), ('KZ', 'Kazakhstan')`);
    for (const f of FIXTURES) {
      const [row] = await db.query<{ id: string }>(
        `insert into assets (type, ticker, isin, name, latin_name, currency, current_rate, price_change_percentage_24h,
                             price_change_percentage_7d, rate_updated_at)
         values ('share', $1, $2, $3, $4, $5, $6, $7, $8, '2024-02-29T09:00:00Z') returning id`,
        [f.ticker, f.isin ?? null, f.name, f.latin ?? null, f.currency ?? 'RUB', f.price, f.d24, f.d7],
      );
      ids.set(f.ticker, Number(row!.id));
      await db.query(
        `insert into shares (asset_id, category_id, country_code, market_cap, trading_volume, dividends_synced_at)
         values ($1, (select id from share_categories where slug = $2), $3, $4, $5, $6)`,
        [row!.id, f.category, f.country, f.cap, f.volume, f.dividends === null ? null : new Date()],
      );
      for (const d of f.dividends ?? []) {
        await db.query(`insert into dividends (asset_id, record_date, value, currency, source) values ($1, $2, $3, $4, 'test')`, [
          row!.id,
          d.recordDate,
          d.value,
          d.currency,
        ]);
      }
    }
    // Not a share: never listed.
    await db.query(`insert into assets (type, ticker, name, currency, current_rate) values ('bond', 'ALFA', 'Альфа облигация', 'RUB', 1000)`);
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  const list = (input: Record<string, unknown> = {}, today = TODAY) => listShares(db, q({ per_page: 100, ...input }), today);
  const tickers = (rows: ShareRow[]) => rows.map((r) => r.asset);

  it('lists the dividend yield as computed by hand (the rule itself: dividend-yield.test.ts)', async () => {
    const { data } = await list();
    expect(data).toHaveLength(FIXTURES.length);
    for (const row of data) {
      const expected = HAND_YIELDS[row.asset];
      if (expected === null) expect(row.dividend_yield).toBeNull();
      else expect(row.dividend_yield).toBeCloseTo(expected!, 10);
    }
  });

  it('moves the dividend window with the market date', async () => {
    // One day later, ALFA's dividend of 2024-02-29 is in the past and 2025-02-28 has come in: (3 + 100) / 100.
    const { data } = await list({ search: 'alfa' }, '2024-03-01');
    expect(data[0]?.dividend_yield).toBeCloseTo(103, 10);
  });

  it('shapes rows as the contract says, numbers as numbers', async () => {
    const { data } = await list({ search: 'ALFA' });
    expect(data).toEqual([
      {
        id: ids.get('ALFA'),
        asset: 'ALFA',
        isin: 'RU000ALFA001',
        name: 'Альфа ао',
        current_rate: 100,
        price_change_percentage_24h: 1.5,
        price_change_percentage_7d: 3,
        dividend_yield: 8,
        market_cap: 1000,
        trading_volume: 50,
        category: { id: 1, slug: 'ordinary', name: 'Ordinary shares' },
        country: { code: 'RU', name: 'Russia' },
        currency: 'RUB',
        updated_at: '2024-02-29T09:00:00.000Z',
      },
    ]);
    const delta = (await list({ search: 'delt' })).data[0]!;
    expect(delta.country).toBeNull();
    expect(delta.isin).toBeNull();
  });

  const columns = [
    ['market_cap', (f: Fixture) => f.cap],
    ['trading_volume', (f: Fixture) => f.volume],
    ['price_change_percentage_24h', (f: Fixture) => f.d24],
    ['price_change_percentage_7d', (f: Fixture) => f.d7],
    ['dividend_yield', (f: Fixture) => HAND_YIELDS[f.ticker] ?? null],
  ] as const;

  for (const [sort, value] of columns) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`sorts by ${sort} ${direction}, nulls last, ties by id`, async () => {
        // Expected order from the fixtures, by an independent comparator.
        const expected = [...FIXTURES]
          .sort((a, b) => {
            const va = value(a);
            const vb = value(b);
            if (va === null && vb === null) return ids.get(a.ticker)! - ids.get(b.ticker)!;
            if (va === null) return 1;
            if (vb === null) return -1;
            if (va !== vb) return direction === 'asc' ? va - vb : vb - va;
            return ids.get(a.ticker)! - ids.get(b.ticker)!;
          })
          .map((f) => f.ticker);
        expect(tickers((await list({ sort, direction })).data)).toEqual(expected);
      });
    }
  }

  it('defaults to market_cap desc', async () => {
    // ALFA and DELT tie on 1000: ALFA has the lower id. Then GAMA 500, EPSI 20; nulls (BETA, ZETA) last by id.
    expect(tickers((await list()).data)).toEqual(['ALFA', 'DELT', 'GAMA', 'EPSI', 'BETA', 'ZETA']);
  });

  it('pages with a stable order and counts the filtered total', async () => {
    const pages = await Promise.all([1, 2, 3].map((page) => list({ per_page: 2, page, sort: 'price_change_percentage_24h' })));
    expect(pages.map((p) => p.meta)).toEqual([
      { current_page: 1, per_page: 2, total: 6, last_page: 3, from: 1, to: 2 },
      { current_page: 2, per_page: 2, total: 6, last_page: 3, from: 3, to: 4 },
      { current_page: 3, per_page: 2, total: 6, last_page: 3, from: 5, to: 6 },
    ]);
    const all = tickers((await list({ sort: 'price_change_percentage_24h' })).data);
    expect(pages.flatMap((p) => tickers(p.data))).toEqual(all);
    const beyond = await list({ per_page: 2, page: 9 });
    expect(beyond).toEqual({ data: [], meta: { current_page: 9, per_page: 2, total: 6, last_page: 3, from: null, to: null } });
  });

  it('filters by a dividend yield range, bounds included, unknown yields left out', async () => {
    // Yields: ALFA 8, BETA 0, EPSI 5; GAMA, DELT, ZETA unknown.
    expect(tickers((await list({ dividend_yield_min: '5', sort: 'dividend_yield' })).data)).toEqual(['ALFA', 'EPSI']);
    expect(tickers((await list({ dividend_yield_max: '5', sort: 'dividend_yield', direction: 'asc' })).data)).toEqual(['BETA', 'EPSI']);
    expect(tickers((await list({ dividend_yield_min: '0', dividend_yield_max: '0' })).data)).toEqual(['BETA']);
    expect(tickers((await list({ dividend_yield_min: '5.5', dividend_yield_max: '8' })).data)).toEqual(['ALFA']);
    // Under another sort (the yield then computed per row for the filter only), and with the total counted after it.
    const page = await list({ dividend_yield_min: '0', sort: 'trading_volume', per_page: 2 });
    expect(tickers(page.data)).toEqual(['ALFA', 'BETA']);
    expect(page.meta.total).toBe(3);
    expect(page.data[0]!.dividend_yield).toBeCloseTo(8, 10);
  });

  it('filters by a market cap range, bounds included, shares without one left out', async () => {
    // Caps: ALFA 1000, DELT 1000, GAMA 500, EPSI 20; BETA, ZETA none.
    expect(tickers((await list({ market_cap_min: '500' })).data)).toEqual(['ALFA', 'DELT', 'GAMA']);
    expect(tickers((await list({ market_cap_max: '500' })).data)).toEqual(['GAMA', 'EPSI']);
    expect(tickers((await list({ market_cap_min: '20', market_cap_max: '999.99' })).data)).toEqual(['GAMA', 'EPSI']);
    expect((await list({ market_cap_min: '1000.01' })).meta.total).toBe(0);
    // Combined with the yield and the other filters.
    expect(tickers((await list({ market_cap_min: '100', dividend_yield_min: '1', country_code: 'RU' })).data)).toEqual(['ALFA']);
  });

  it('filters by category id or slug, and by country', async () => {
    expect(tickers((await list({ category: 'preferred' })).data)).toEqual(['BETA']);
    expect(tickers((await list({ category: '2' })).data)).toEqual(['BETA']);
    expect(tickers((await list({ category: 3 })).data)).toEqual(['DELT']);
    expect((await list({ category: 'bonds' })).meta.total).toBe(0);
    expect(tickers((await list({ country_code: 'kz' })).data)).toEqual(['GAMA']);
    expect((await list({ country_code: 'RU', category: 'ordinary' })).meta.total).toBe(3);
  });

  it('searches ticker, Cyrillic and Latin names and ISIN, case-insensitively', async () => {
    expect(tickers((await list({ search: 'бета' })).data)).toEqual(['BETA']);
    expect(tickers((await list({ search: 'ГАММА' })).data)).toEqual(['GAMA']);
    expect(tickers((await list({ search: 'gdr delta' })).data)).toEqual(['DELT']);
    expect(tickers((await list({ search: 'kz000' })).data)).toEqual(['GAMA']);
    expect(tickers((await list({ search: 'eps' })).data)).toEqual(['EPSI']);
    // ё and е are one letter for search.
    expect(tickers((await list({ search: 'елка' })).data)).toEqual(['EPSI']);
    expect(tickers((await list({ search: 'ЁЛКА' })).data)).toEqual(['EPSI']);
  });

  it('matches LIKE wildcards literally', async () => {
    expect(tickers((await list({ search: '%' })).data)).toEqual(['EPSI']);
    expect(tickers((await list({ search: '_' })).data)).toEqual(['EPSI']);
    // "a_c" must not match "abc" (ZETA's Latin name).
    expect((await list({ search: 'a_c' })).meta.total).toBe(0);
    expect((await list({ search: 'a%c' })).meta.total).toBe(0);
    expect((await list({ search: '\\' })).meta.total).toBe(0);
    expect(escapeLike('100%_\\x')).toBe('100\\%\\_\\\\x');
  });

  it('never puts user input into the SQL text', async () => {
    const evil = "'; drop table assets; --";
    const { sql, params } = buildListSharesSql(q({ search: evil, category: 'x-y' }), TODAY);
    expect(sql).not.toContain('drop table');
    expect(sql).not.toContain('x-y');
    expect(params).toContain(`%${evil}%`);
    expect((await list({ search: evil })).meta.total).toBe(0);
    expect(() => buildListSharesSql(q(), "2024-01-01'; --")).toThrow();
  });
});
