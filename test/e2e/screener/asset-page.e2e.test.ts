/**
 * The public asset page through HTTP (`GET /api/public/assets/{type}/{ticker}` and `.../closes`): the real
 * screener (demo data, fresh database) behind the real gateway over NATS. Expectations come from SQL on the test
 * database, not from the implementation's output.
 */
import { assetClosesSchema, assetPageSchema } from '@invest/contracts';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScreenerStack, startScreenerStack } from '../support/screener-stack.js';

let stack: ScreenerStack;
let sql: pg.Client;

async function call(path: string): Promise<{ status: number; body: ReturnType<typeof JSON.parse> }> {
  const res = await fetch(new URL(path, stack.base));
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const daysAgo = (n: number) => isoDay(new Date(Date.now() - n * 86_400_000));

beforeAll(async () => {
  stack = await startScreenerStack('gw_asset_page', {
    jwtSecret: 'asset-page-e2e-secret-0123456789-0123456789',
    prepare: async (db) => {
      const [sber] = (await db.query<{ id: string }>(`select id from assets where type = 'share' and ticker = 'SBER'`)).rows;
      // Closes 20, 100 and 300 days back: 1M sees the first, 6M two, 1Y all three.
      await db.query(
        `insert into asset_daily_closes (asset_id, trade_date, close) select $1, d::date, c from unnest($2::text[], $3::numeric[]) as u(d, c)
         on conflict do nothing`,
        [sber!.id, [daysAgo(300), daysAgo(100), daysAgo(20)], ['250.10', '270.55', '301.2']],
      );
      // A past dividend with a Monday record date (the ex-date is the Friday before) and a future one.
      await db.query(
        `insert into dividends (asset_id, record_date, value, currency, source) values ($1, '2024-07-15', 33.3, 'RUB', 'test'), ($1, $2, 12.5, 'RUB', 'test')
         on conflict do nothing`,
        [sber!.id, isoDay(new Date(Date.now() + 40 * 86_400_000))],
      );
    },
  });
  sql = stack.sql;
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('GET /api/public/assets/{type}/{ticker}', () => {
  it("answers a share's identity, key figures and dividends with ex-dates", async () => {
    const res = await call('/api/public/assets/share/SBER');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const page = assetPageSchema.parse(res.body.data);
    const [db] = (
      await sql.query(
        `select a.id::int, a.name, a.isin, a.current_rate::float8 as rate, s.market_cap::float8 as cap, s.trading_volume::float8 as vol, c.slug
         from assets a join shares s on s.asset_id = a.id join share_categories c on c.id = s.category_id where a.type = 'share' and a.ticker = 'SBER'`,
      )
    ).rows;
    expect(page).toMatchObject({ id: db.id, type: 'share', ticker: 'SBER', name: db.name, isin: db.isin, current_rate: db.rate });
    expect(page.share).toMatchObject({ market_cap: db.cap, trading_volume: db.vol, category: { slug: db.slug } });
    // The screener row of the same share carries the same yield.
    const row = (await call('/api/public/shares?search=SBER')).body.data.find((r: { asset: string }) => r.asset === 'SBER');
    expect(page.share!.dividend_yield).toBe(row.dividend_yield);
    const count = (await sql.query(`select count(*)::int as n from dividends where asset_id = $1`, [db.id])).rows[0].n;
    expect(page.dividends).toHaveLength(count);
    expect(page.dividends.find((d) => d.record_date === '2024-07-15')).toEqual({ record_date: '2024-07-15', ex_date: '2024-07-12', value: '33.3', currency: 'RUB', upcoming: false });
    expect(page.dividends.filter((d) => d.upcoming).map((d) => d.value)).toContain('12.5');
    const dates = page.dividends.map((d) => d.record_date);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it('finds a ticker in any case; an unknown ticker, an unknown type and a custom asset are 404s', async () => {
    expect((await call('/api/public/assets/share/sber')).body.data.ticker).toBe('SBER');
    for (const path of ['/api/public/assets/share/NOPE', '/api/public/assets/bond/SBER', '/api/public/assets/planet/SBER', '/api/public/assets/custom_asset/SBER']) {
      const res = await call(path);
      expect(res.status, path).toBe(404);
      expect(res.body.message).toMatch(/not found/i);
    }
  });
});

describe('GET /api/public/assets/{type}/{ticker}/closes', () => {
  it('answers the closes of 1M, 6M and 1Y in date order', async () => {
    const seen: Record<string, string[]> = {};
    for (const range of ['1M', '6M', '1Y']) {
      const res = await call(`/api/public/assets/share/SBER/closes?range=${range}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = assetClosesSchema.parse(res.body.data);
      expect(body.range).toBe(range);
      expect(body.dates).toHaveLength(body.closes.length);
      expect([...body.dates].sort()).toEqual(body.dates);
      seen[range] = body.closes;
    }
    expect(seen['1M']).toContain('301.2');
    expect(seen['1M']).not.toContain('250.1');
    expect(seen['6M']).toEqual(expect.arrayContaining(['270.55', '301.2']));
    // Canonical decimal text: 250.10 is stored, 250.1 answered.
    expect(seen['1Y']).toEqual(expect.arrayContaining(['250.1', '270.55', '301.2']));
    // No range is 1M.
    expect((await call('/api/public/assets/share/SBER/closes')).body.data.range).toBe('1M');
  });

  it('rejects a bad range with a 422 and an unknown asset with a 404', async () => {
    const bad = await call('/api/public/assets/share/SBER/closes?range=5Y');
    expect(bad.status).toBe(422);
    expect(bad.body.errors.range[0]).toMatch(/range/i);
    expect((await call('/api/public/assets/share/NOPE/closes?range=1M')).status).toBe(404);
  });
});
