import { type Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { MAX_QUOTE_TIME_AHEAD_MS, type RateInput, writeRateBatch } from './rate-writer.js';

const TZ = 'Europe/Moscow';

describe('writeRateBatch', () => {
  let db: Db;
  useTestDatabase('scr_rates', migrations, (opened) => (db = opened));
  beforeEach(async () => {
    await db.query('truncate assets, es_events cascade');
  });

  const item = (key: string, rate: number, extra: Partial<RateInput> = {}): RateInput => ({
    key,
    ticker: key,
    name: `${key} name`,
    currency: 'RUB',
    rate,
    priceSource: 'LAST',
    priceChangePercentage24h: 1.5,
    asOf: new Date('2024-02-15T14:54:06Z'),
    ...extra,
  });
  const asset = async (ticker: string) =>
    (
      await db.query<{ rate: string; d24: string | null; d7: string | null; at: string }>(
        `select current_rate::text as rate, price_change_percentage_24h::text as d24, price_change_percentage_7d::text as d7,
                to_char(rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as at
         from assets where ticker = $1`,
        [ticker],
      )
    )[0];
  const events = () => db.query<{ data: { source: string; rates: { ticker: string; rate: number }[] } }>('select data from es_events order by global_position');

  it('creates missing assets, records one event for the batch, and nothing when the same data comes again', async () => {
    const batch = { assetType: 'etf' as const, source: 'test', insertMissing: true, items: [item('AAA', 10), item('BBB', 20)] };
    const first = await writeRateBatch(db, batch, { marketTz: TZ });
    expect(first).toMatchObject({ inserted: 2, events: 1, skipped: [] });
    expect(first.changed.map((c) => [c.ticker, c.rate])).toEqual([
      ['AAA', 10],
      ['BBB', 20],
    ]);
    const [event] = await events();
    expect(event!.data.rates.map((r) => r.ticker)).toEqual(['AAA', 'BBB']);

    const second = await writeRateBatch(db, batch, { marketTz: TZ });
    expect(second).toMatchObject({ inserted: 0, events: 0, changed: [] });
    expect(await events()).toHaveLength(1);
  });

  it('publishes only what changed; a null change keeps the stored one; unknown keys are skipped when not inserting', async () => {
    await writeRateBatch(db, { assetType: 'etf', source: 'test', insertMissing: true, items: [item('AAA', 10), item('BBB', 20)] }, { marketTz: TZ });
    const later = new Date('2024-02-15T15:00:00Z');
    const r = await writeRateBatch(
      db,
      {
        assetType: 'etf',
        source: 'test',
        insertMissing: false,
        items: [item('AAA', 10.5, { asOf: later, priceChangePercentage24h: null }), item('BBB', 20, { asOf: later }), item('NEW', 1)],
      },
      { marketTz: TZ },
    );
    expect(r.changed.map((c) => c.ticker)).toEqual(['AAA']);
    expect(r.changed[0]).toMatchObject({ rate: 10.5, priceChangePercentage24h: 1.5, asOf: '2024-02-15T15:00:00.000Z' });
    expect(r.skipped).toEqual([{ key: 'NEW', reason: 'not a known asset' }]);
    expect(await asset('AAA')).toMatchObject({ rate: '10.5', d24: '1.5', at: '2024-02-15T15:00:00Z' });
    // BBB's time moved on (fresh data), its rate did not: it is not in the event.
    expect(await asset('BBB')).toMatchObject({ rate: '20', at: '2024-02-15T15:00:00Z' });
    expect((await events()).at(-1)!.data.rates.map((x) => x.ticker)).toEqual(['AAA']);
  });

  it('never lets older data overwrite newer', async () => {
    await writeRateBatch(db, { assetType: 'etf', source: 'test', insertMissing: true, items: [item('AAA', 10)] }, { marketTz: TZ });
    const r = await writeRateBatch(
      db,
      { assetType: 'etf', source: 'test', insertMissing: false, items: [item('AAA', 1, { asOf: new Date('2024-02-14T10:00:00Z') })] },
      { marketTz: TZ },
    );
    expect(r).toMatchObject({ changed: [], skipped: [{ key: 'AAA', reason: 'older than the stored rate' }] });
    expect((await asset('AAA'))?.rate).toBe('10');
  });

  it('skips a quote dated beyond the clock (a provider glitch), so it cannot hold the rate until then', async () => {
    const now = new Date('2024-02-15T15:00:00Z');
    await writeRateBatch(db, { assetType: 'etf', source: 'test', insertMissing: true, items: [item('AAA', 10)] }, { marketTz: TZ, now });
    const glitch = await writeRateBatch(
      db,
      { assetType: 'etf', source: 'test', insertMissing: false, items: [item('AAA', 999, { asOf: new Date('2099-01-01T10:00:00Z') })] },
      { marketTz: TZ, now },
    );
    expect(glitch).toMatchObject({ changed: [], events: 0, skipped: [{ key: 'AAA', reason: 'quote time ahead of the clock' }] });
    expect(await asset('AAA')).toMatchObject({ rate: '10', at: '2024-02-15T14:54:06Z' });
    // Clock skew within the tolerance is accepted; the correct quotes that follow land.
    const skewed = new Date(now.getTime() + MAX_QUOTE_TIME_AHEAD_MS);
    await writeRateBatch(db, { assetType: 'etf', source: 'test', insertMissing: false, items: [item('AAA', 11, { asOf: skewed })] }, { marketTz: TZ, now });
    expect(await asset('AAA')).toMatchObject({ rate: '11', at: '2024-02-15T15:05:00Z' });
  });

  it('makes the 7-day change unknown after a gap without a close 7 to 13 days back (not the old week\'s value)', async () => {
    const write = (rate: number, d: string) =>
      writeRateBatch(db, { assetType: 'etf', source: 'test', insertMissing: true, items: [item('GAP', rate, { asOf: new Date(`${d}T12:00:00Z`) })] }, { marketTz: TZ });
    await write(100, '2024-03-01');
    await write(120, '2024-03-08');
    expect((await asset('GAP'))?.d7).toBe('20.0000');
    // Nothing between 03-17 and 03-23: no base for 03-30.
    await write(150, '2024-03-30');
    expect((await asset('GAP'))?.d7).toBeNull();
  });

  it('computes the 7-day change from the close 7 days back, null without history, the provider value when given', async () => {
    const at = (d: string) => new Date(`${d}T12:00:00Z`);
    const write = (rate: number, d: string, extra: Partial<RateInput> = {}) =>
      writeRateBatch(db, { assetType: 'share', source: 'test', insertMissing: true, items: [item('SHR', rate, { asOf: at(d), ...extra })] }, { marketTz: TZ });
    // Shares need their sibling row to be created; the writer only needs the asset for rates.
    await write(100, '2024-02-01');
    expect((await asset('SHR'))?.d7).toBeNull();
    await write(110, '2024-02-05');
    // 2024-02-08 - 7 days = 2024-02-01: close 100.
    await write(120, '2024-02-08');
    expect((await asset('SHR'))?.d7).toBe('20.0000');
    // 2024-02-12 - 7 = 2024-02-05: close 110; 99 / 110 - 1 = -10 %.
    await write(99, '2024-02-12');
    expect((await asset('SHR'))?.d7).toBe('-10.0000');
    // A provider's own 7-day change wins.
    await write(99, '2024-02-13', { priceChangePercentage7d: 3.25 });
    expect((await asset('SHR'))?.d7).toBe('3.25');
    const closes = await db.query<{ d: string; close: string }>(`select to_char(trade_date, 'YYYY-MM-DD') as d, close::text from asset_daily_closes order by trade_date`);
    // The current day's close is the asset's rate; each earlier day's was stored when the next day's rate came.
    expect(closes).toEqual([
      { d: '2024-02-01', close: '100' },
      { d: '2024-02-05', close: '110' },
      { d: '2024-02-08', close: '120' },
      { d: '2024-02-12', close: '99' },
    ]);
    expect(await asset('SHR')).toMatchObject({ rate: '99', at: '2024-02-13T12:00:00Z' });
  });

  it('stores a day\'s last rate as its close when the first rate of a later market day (MARKET_TZ) arrives', async () => {
    const write = (rate: number, iso: string) =>
      writeRateBatch(db, { assetType: 'etf', source: 'test', insertMissing: true, items: [item('AAA', rate, { asOf: new Date(iso) })] }, { marketTz: TZ });
    const closes = () => db.query<{ d: string; close: string }>(`select to_char(trade_date, 'YYYY-MM-DD') as d, close::text from asset_daily_closes order by trade_date`);
    await write(10, '2024-03-01T07:00:00Z');
    await write(11, '2024-03-01T15:00:00Z');
    // 23:30 in Moscow is still 1 March there.
    await write(12, '2024-03-01T20:30:00Z');
    expect(await closes()).toEqual([]);
    // 00:30 on 2 March in Moscow (21:30 UTC on 1 March): the last rate of 1 March is its close.
    await write(13, '2024-03-01T21:30:00Z');
    expect(await closes()).toEqual([{ d: '2024-03-01', close: '12' }]);
    // Two days without rates, then one: 2 March's close is stored, no row for the days without rates.
    await write(14, '2024-03-05T08:00:00Z');
    expect(await closes()).toEqual([
      { d: '2024-03-01', close: '12' },
      { d: '2024-03-02', close: '13' },
    ]);
  });

  it('takes the 7-day base from the stored rate when its day is the latest in the window, and reads it once a day', async () => {
    const at = (d: string, h = 12) => new Date(`${d}T${String(h).padStart(2, '0')}:00:00Z`);
    const write = (rate: number, when: Date) =>
      writeRateBatch(db, { assetType: 'etf', source: 'test', insertMissing: true, items: [item('AAA', rate, { asOf: when })] }, { marketTz: TZ });
    await write(100, at('2024-02-01'));
    // 2024-02-09 - 7 = 2024-02-02 ≥ 2024-02-01 (the stored rate's day, not in the closes table yet): base 100.
    await write(125, at('2024-02-09', 8));
    expect((await asset('AAA'))?.d7).toBe('25.0000');
    // The base is kept for the day: a close written into the window behind the writer's back is not re-read
    // until the next market day.
    await db.query(`update asset_daily_closes set close = 50 where trade_date = '2024-02-01'`);
    await write(150, at('2024-02-09', 10));
    expect((await asset('AAA'))?.d7).toBe('50.0000');
    await write(150, at('2024-02-10'));
    expect((await asset('AAA'))?.d7).toBe('200.0000');
  });

  it('keys tokens by coin id, so two coins with one symbol stay apart', async () => {
    const r = await writeRateBatch(
      db,
      {
        assetType: 'token',
        source: 'test',
        insertMissing: true,
        items: [item('usd-coin', 1.001, { ticker: 'USDC', currency: 'USD' }), item('bridged-usdc', 0.999, { ticker: 'USDC', currency: 'USD' })],
      },
      { marketTz: TZ },
    );
    expect(r.inserted).toBe(2);
    const rows = await db.query<{ source_id: string; ticker: string; rate: string }>(
      `select source_id, ticker, current_rate::text as rate from assets where type = 'token' order by source_id`,
    );
    expect(rows).toEqual([
      { source_id: 'bridged-usdc', ticker: 'USDC', rate: '0.999' },
      { source_id: 'usd-coin', ticker: 'USDC', rate: '1.001' },
    ]);
  });

  it('never writes a non-finite or non-positive rate; a non-finite change or quoted price counts as unknown', async () => {
    await writeRateBatch(db, { assetType: 'currency', source: 'test', insertMissing: true, items: ['INF', 'NAN', 'ZERO', 'OK'].map((k) => item(k, 5)) }, { marketTz: TZ });
    const later = new Date('2024-02-15T15:00:00Z');
    const r = await writeRateBatch(
      db,
      {
        assetType: 'currency',
        source: 'test',
        insertMissing: true,
        items: [
          // e.g. a price divided by a (near) zero PREVPRICE or MINSTEP upstream.
          item('INF', Number.POSITIVE_INFINITY, { asOf: later }),
          item('NAN', Number.NaN, { asOf: later }),
          item('ZERO', 0, { asOf: later }),
          item('OK', 6, { asOf: later, priceChangePercentage24h: Number.POSITIVE_INFINITY, priceChangePercentage7d: Number.NaN, quotedPrice: Number.NEGATIVE_INFINITY }),
        ],
      },
      { marketTz: TZ },
    );
    expect(r.skipped).toEqual([
      { key: 'INF', reason: 'no finite positive rate' },
      { key: 'NAN', reason: 'no finite positive rate' },
      { key: 'ZERO', reason: 'no finite positive rate' },
    ]);
    for (const k of ['INF', 'NAN', 'ZERO']) expect(await asset(k)).toMatchObject({ rate: '5', d24: '1.5', at: '2024-02-15T14:54:06Z' });
    expect(await asset('OK')).toMatchObject({ rate: '6', d24: '1.5' });
    expect(r.changed).toEqual([expect.objectContaining({ ticker: 'OK', rate: 6, priceChangePercentage24h: 1.5 })]);
    const data = (await events()).map((e) => e.data);
    expect(JSON.stringify(data)).not.toMatch(/null,"asOf"|Infinity|NaN/);
  });
});
