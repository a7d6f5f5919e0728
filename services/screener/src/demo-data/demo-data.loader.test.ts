import { readFileSync } from 'node:fs';
import { type Db, openDatabase } from '@invest/platform/db/database';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { screenerDataFile } from '../package-root.js';
import { DEMO_CLOSE_DAYS } from './demo-closes.js';
import { DEMO_CLOSES_LOAD, DEMO_DATA_LOAD, loadDemoData } from './demo-data.loader.js';

/** Expected counts, derived from the raw capture by hand-written lookups (not by the parser). */
function expectedFromCapture() {
  type Block = { columns: string[]; data: unknown[][] };
  const doc = JSON.parse(readFileSync(screenerDataFile('moex-shares-2024-02-15.json'), 'utf8')) as Record<string, Block>;
  const sec = doc.securities!;
  const col = (name: string) => sec.columns.indexOf(name);
  const rows = sec.data.filter((r) => ['TQBR', 'TQPI'].includes(r[col('BOARDID')] as string) && ['1', '2', 'D'].includes(r[col('SECTYPE')] as string));
  const dividends = JSON.parse(readFileSync(screenerDataFile('demo-dividends.json'), 'utf8')) as { dividends: { payments: unknown[] }[] };
  return {
    shares: rows.length,
    countries: new Set(rows.map((r) => (r[col('ISIN')] as string).slice(0, 2))).size,
    payments: dividends.dividends.reduce((n, d) => n + d.payments.length, 0),
  };
}

describe('loadDemoData', () => {
  let db: Db;
  let drop: () => Promise<void>;
  const expected = expectedFromCapture();
  const counts = async () => {
    const [row] = await db.query<Record<string, number>>(
      `select (select count(*)::int from assets) as assets, (select count(*)::int from shares) as shares,
              (select count(*)::int from dividends) as dividends, (select count(*)::int from countries) as countries,
              (select count(*)::int from share_categories) as categories, (select count(*)::int from data_loads) as loads`,
    );
    return row!;
  };

  beforeAll(async () => {
    const t = await createTestDatabase('scr_demo');
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });

  it('loads the main-board shares and the demo dividends once, even when two instances start together', async () => {
    // 2024-02-15 is the capture's day; both loads race for the advisory lock.
    const results = await Promise.all([loadDemoData(db, { today: '2024-02-15' }), loadDemoData(db, { today: '2024-02-15' })]);
    expect(results.filter((r) => r.loaded)).toHaveLength(1);
    const loaded = results.find((r) => r.loaded)!;
    expect(loaded.shares).toBe(expected.shares);
    // TQPI fund units (SECTYPE B and F) are not shares.
    expect(loaded.skipped).toBe(262 - expected.shares);
    expect(loaded.dividends).toBe(expected.payments);
    expect(await counts()).toEqual({
      assets: expected.shares,
      shares: expected.shares,
      dividends: expected.payments,
      countries: expected.countries,
      categories: 3,
      loads: 2,
    });
    const markers = await db.query<{ name: string }>('select name from data_loads order by name');
    expect(markers.map((m) => m.name).sort()).toEqual([DEMO_CLOSES_LOAD, DEMO_DATA_LOAD].sort());
  });

  it('stores what the capture says for a share', async () => {
    const [sber] = await db.query<Record<string, unknown>>(
      `select a.board, a.isin, a.currency, a.current_rate::float8 as rate, a.price_change_percentage_24h::float8 as d24,
              to_char(a.rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as rate_updated_at, s.market_cap::float8 as cap, s.trading_volume::float8 as vol, s.lot_size, s.country_code,
              c.slug, s.dividends_synced_at is not null as dividends_known
       from assets a join shares s on s.asset_id = a.id join share_categories c on c.id = s.category_id
       where a.ticker = 'SBER'`,
    );
    expect(sber).toMatchObject({
      board: 'TQBR',
      isin: 'RU0009029540',
      currency: 'RUB',
      rate: 289.83,
      d24: 0.27,
      cap: 6260214920000,
      vol: 5716579901,
      lot_size: 10,
      country_code: 'RU',
      slug: 'ordinary',
      dividends_known: true,
      // UPDATETIME 17:54:06 Moscow time
      rate_updated_at: '2024-02-15T14:54:06Z',
    });
    const [sberDividend] = await db.query<{ record_date: string; value: string }>(
      `select to_char(d.record_date, 'YYYY-MM-DD') as record_date, d.value::text as value
       from dividends d join assets a on a.id = d.asset_id where a.ticker = 'SBER'`,
    );
    // Record month-day 07-11 placed after 2024-02-15.
    expect(sberDividend).toEqual({ record_date: '2024-07-11', value: '33.3' });
  });

  it('records the seeded rates as one RatesUpdated, so other services learn them', async () => {
    const events = await db.query<{ type: string; stream_name: string; data: { version: number; source: string; rates: Record<string, unknown>[] } }>(
      'select type, stream_name, data from es_events',
    );
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({ type: 'RatesUpdated', stream_name: 'rates-share', data: { version: 1, source: DEMO_DATA_LOAD } });
    expect(event!.data.rates).toHaveLength(expected.shares);
    const [sber] = await db.query<{ id: string }>(`select id::text from assets where ticker = 'SBER'`);
    // LAST of SBER on TQBR in the capture, LASTTOPREVPRICE 0.27, UPDATETIME 17:54:06 MSK.
    expect(event!.data.rates.find((r) => r.ticker === 'SBER')).toEqual({
      assetType: 'share',
      assetId: Number(sber!.id),
      ticker: 'SBER',
      currency: 'RUB',
      rate: 289.83,
      priceChangePercentage24h: 0.27,
      asOf: '2024-02-15T14:54:06.000Z',
    });
  });

  it('keeps 14 days of closes before the load day for every priced share, so the 7-day change has its base', async () => {
    const [row] = await db.query<{ priced: number; with14: number; first: string; last: string; closes: number }>(
      `select (select count(*)::int from assets where type = 'share' and current_rate > 0) as priced,
              (select count(*)::int from (select asset_id from asset_daily_closes
                                          where trade_date between '2024-02-01' and '2024-02-14' group by asset_id
                                          having count(*) >= 14) x) as with14,
              (select to_char(min(trade_date), 'YYYY-MM-DD') from asset_daily_closes) as first,
              (select to_char(max(trade_date), 'YYYY-MM-DD') from asset_daily_closes) as last,
              (select count(*)::int from asset_daily_closes) as closes`,
    );
    expect(DEMO_CLOSE_DAYS).toBeGreaterThanOrEqual(14);
    expect(row).toEqual({ priced: row!.priced, with14: row!.priced, first: '2024-02-01', last: '2024-02-14', closes: row!.priced * DEMO_CLOSE_DAYS });
    expect(row!.priced).toBeGreaterThan(200);
  });

  it('a database that had the demo shares before the closes existed gets them once; stored closes are kept', async () => {
    const t = await createTestDatabase('scr_demo_old');
    const old = await openDatabase({ url: t.url, migrations });
    try {
      await loadDemoData(old, { today: '2026-11-28' });
      // As before the closes load existed: no marker, no closes, one real close, and a base found missing today.
      await old.query(`delete from data_loads where name = $1`, [DEMO_CLOSES_LOAD]);
      await old.query(`delete from asset_daily_closes`);
      await old.query(`insert into asset_daily_closes (asset_id, trade_date, close) select id, '2026-11-20', 1.5 from assets where ticker = 'SBER'`);
      await old.query(`update assets set close_7d_base = null, close_7d_base_for = '2026-11-28' where ticker in ('SBER', 'GAZP')`);
      const first = await loadDemoData(old, { today: '2026-11-28' });
      expect(first.loaded).toBe(false);
      const [n] = await old.query<{ priced: number }>(`select count(*)::int as priced from assets where type = 'share' and current_rate > 0`);
      expect(first.closes).toBe(n!.priced * DEMO_CLOSE_DAYS - 1);
      const [sber] = await old.query<{ close: string }>(
        `select c.close::text as close from asset_daily_closes c join assets a on a.id = c.asset_id where a.ticker = 'SBER' and c.trade_date = '2026-11-20'`,
      );
      expect(sber?.close).toBe('1.5');
      // The base looked for earlier today is looked for again by the next rate.
      expect(await old.query(`select 1 from assets where ticker in ('SBER', 'GAZP') and close_7d_base_for is not null`)).toHaveLength(0);
      expect((await loadDemoData(old, { today: '2026-11-29' })).closes).toBe(0);
    } finally {
      await old.close();
      await t.drop();
    }
  });

  it('does nothing on a later start: changed data is kept, nothing is duplicated', async () => {
    const before = await counts();
    await db.query(`update assets set current_rate = 300 where ticker = 'SBER'`);
    await db.query(`delete from dividends where asset_id = (select id from assets where ticker = 'LKOH')`);
    const again = await loadDemoData(db, { today: '2025-06-01' });
    expect(again.loaded).toBe(false);
    expect(await counts()).toEqual({ ...before, dividends: before.dividends! - 2 });
    const [sber] = await db.query<{ rate: string }>(`select current_rate::text as rate from assets where ticker = 'SBER'`);
    expect(sber?.rate).toBe('300');
    expect(await db.query('select 1 from es_events')).toHaveLength(1);
  });
});
