import { type Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { dividendYieldSql } from './dividend-yield.js';

interface Dividend {
  recordDate: string;
  value: number;
  currency: string;
}
const rub = (recordDate: string, value: number): Dividend => ({ recordDate, value, currency: 'RUB' });

/** The rule as the screener runs it: the SQL expression of the list query, on Postgres. */
describe('dividendYieldSql', () => {
  let db: Db;
  useTestDatabase('scr_yield', migrations, (opened) => (db = opened));
  beforeEach(async () => {
    await db.query('truncate assets cascade');
  });

  let shares = 0;
  /** One share with `price` in `currency` and `dividends` (null: never loaded); its yield on `today`. */
  async function yieldOf(input: { price: number | null; currency?: string; dividends: Dividend[] | null; today: string }): Promise<number | null> {
    const [asset] = await db.query<{ id: string }>(
      `insert into assets (type, ticker, name, currency, current_rate) values ('share', $3, $3, $1, $2) returning id::text`,
      [input.currency ?? 'RUB', input.price, `T${++shares}`],
    );
    await db.query(
      `insert into shares (asset_id, category_id, dividends_synced_at) values ($1, (select id from share_categories where slug = 'ordinary'), $2)`,
      [asset!.id, input.dividends === null ? null : new Date()],
    );
    for (const d of input.dividends ?? []) {
      await db.query(`insert into dividends (asset_id, record_date, value, currency, source) values ($1, $2, $3, $4, 'test')`, [asset!.id, d.recordDate, d.value, d.currency]);
    }
    const expr = dividendYieldSql({ id: 'a.id', currency: 'a.currency', price: 'a.current_rate', dividendsSyncedAt: 's.dividends_synced_at' }, '$1');
    const [row] = await db.query<{ y: number | null }>(`select ${expr} as y from assets a join shares s on s.asset_id = a.id where a.id = $2`, [input.today, asset!.id]);
    return row!.y;
  }

  const today = '2024-03-10';

  it('is the next 12 months of dividends over the price, in percent', async () => {
    // (33.3 + 10) / 289.83 × 100
    expect(await yieldOf({ price: 289.83, today, dividends: [rub('2024-07-11', 33.3), rub('2024-12-01', 10)] })).toBeCloseTo(14.9398, 4);
  });

  it('counts today and excludes the same day a year ahead and the past', async () => {
    const dividends = [rub('2024-03-10', 5), rub('2025-03-09', 3), rub('2025-03-10', 100), rub('2024-03-09', 100)];
    expect(await yieldOf({ price: 100, today, dividends })).toBe(8);
  });

  it('counts only dividends in the price currency', async () => {
    const dividends = [rub('2024-05-01', 4), { recordDate: '2024-05-01', value: 1, currency: 'USD' }];
    expect(await yieldOf({ price: 200, today, dividends })).toBe(2);
    expect(await yieldOf({ price: 200, currency: 'USD', today, dividends })).toBe(0.5);
  });

  it('is 0 when dividends are known and none falls in the window', async () => {
    expect(await yieldOf({ price: 100, today, dividends: [] })).toBe(0);
    expect(await yieldOf({ price: 100, today, dividends: [rub('2023-07-01', 10)] })).toBe(0);
  });

  it('is null without a price or when dividends are unknown', async () => {
    expect(await yieldOf({ price: null, today, dividends: [rub('2024-05-01', 4)] })).toBeNull();
    expect(await yieldOf({ price: 0, today, dividends: [rub('2024-05-01', 4)] })).toBeNull();
    expect(await yieldOf({ price: 100, today, dividends: null })).toBeNull();
  });

  it('ends the window on Feb 28 when today is Feb 29', async () => {
    const dividends = [rub('2025-02-27', 1), rub('2025-02-28', 50)];
    expect(await yieldOf({ price: 10, today: '2024-02-29', dividends })).toBe(10);
  });
});
