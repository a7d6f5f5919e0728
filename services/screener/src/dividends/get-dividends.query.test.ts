import type { Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { getUpcomingDividends } from './get-dividends.query.js';

let db: Db;
useTestDatabase('scr_dividends', migrations, (d) => (db = d));

const ids: Record<string, number> = {};
beforeAll(async () => {
  for (const ticker of ['AAA', 'BBB', 'CCC']) {
    const [row] = await db.query<{ id: string }>(`insert into assets (type, ticker, name, currency) values ('share', $1, $1, 'RUB') returning id::text`, [ticker]);
    ids[ticker] = Number(row!.id);
  }
  await db.query(
    `insert into dividends (asset_id, record_date, value, currency, source) values
       ($1, '2024-05-31', 10, 'RUB', 'test'), ($1, '2024-06-03', 12.345678901, 'RUB', 'test'), ($2, '2024-07-01', 0.5, 'USD', 'test'),
       ($3, '2024-06-10', 7, 'RUB', 'test')`,
    [ids.AAA, ids.BBB, ids.CCC],
  );
});

describe('getUpcomingDividends (screener.dividends.get)', () => {
  it('answers the asked assets’ dividends from the given day on, soonest first, values exact', async () => {
    const reply = await getUpcomingDividends(db, { refs: [{ type: 'share', id: ids.BBB! }, { type: 'share', id: ids.AAA! }], from: '2024-06-03' });
    expect(reply.data).toEqual([
      { type: 'share', id: ids.AAA, record_date: '2024-06-03', value: '12.345678901', currency: 'RUB' },
      { type: 'share', id: ids.BBB, record_date: '2024-07-01', value: '0.5', currency: 'USD' },
    ]);
  });

  it('ignores a reference whose type does not match the asset', async () => {
    const reply = await getUpcomingDividends(db, { refs: [{ type: 'bond', id: ids.CCC! }], from: '2024-01-01' });
    expect(reply.data).toEqual([]);
  });
});
