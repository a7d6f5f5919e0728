import { MAX_CLOSES_PER_REPLY, unpackCloses } from '@invest/contracts';
import type { Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { getCloses } from './get-closes.query.js';

let db: Db;
useTestDatabase('scr_closes', migrations, (d) => (db = d));

const ids: Record<string, number> = {};
beforeAll(async () => {
  for (const ticker of ['AAA', 'BBB', 'EMPTY']) {
    const [row] = await db.query<{ id: string }>(
      `insert into assets (type, ticker, name, currency, current_rate, rate_updated_at) values ('share', $1, $1, 'RUB', 42, '2024-06-03T10:00:00Z') returning id::text`,
      [ticker],
    );
    ids[ticker] = Number(row!.id);
  }
  // AAA: a close every day of 2000-2024 (more than one reply holds); BBB: three closes, one before the range.
  await db.query(
    `insert into asset_daily_closes (asset_id, trade_date, close)
     select $1, d::date, 100 + extract(doy from d) / 100 from generate_series('2000-01-01'::date, '2024-05-31'::date, '1 day') d`,
    [ids.AAA],
  );
  await db.query(`insert into asset_daily_closes values ($1, '2024-01-05', 10.5), ($1, '2024-02-01', 11), ($1, '2024-06-01', 12)`, [ids.BBB]);
});

const refs = () => ['AAA', 'BBB', 'EMPTY'].map((t) => ({ type: 'share' as const, id: ids[t]! }));

describe('getCloses (screener.closes.get)', () => {
  it('answers the range with the last close before it and the current rate as its market day’s close; names the empty', async () => {
    const { reply, empty } = await getCloses(db, { refs: refs().slice(1), from: '2024-01-10', to: '2024-06-03', marketTz: 'Europe/Moscow' });
    expect(reply).toEqual({
      data: [
        // 2024-01-05 and the days after it; the closes in tenths.
        { type: 'share', id: ids.BBB, start: '2024-01-05', days: [0, 27, 148, 150], scale: 1, units: [105, 110, 120, 420] },
        // Nothing stored, but its current rate is the close of the rate's market day.
        { type: 'share', id: ids.EMPTY, start: '2024-06-03', days: [0], scale: 0, units: [42] },
      ],
      next_after: null,
    });
    expect(empty).toEqual([{ type: 'share', id: ids.EMPTY }]);
    expect(unpackCloses(reply.data[0]!)).toEqual({ dates: ['2024-01-05', '2024-02-01', '2024-06-01', '2024-06-03'], closes: ['10.5', '11', '12', '42'] });
  });

  it('pages by asset and date: every close once, in order', async () => {
    const all: string[] = [];
    let after: { asset_id: number; date: string } | undefined;
    let pages = 0;
    do {
      const { reply } = await getCloses(db, { refs: refs(), from: '2000-01-01', to: '2024-05-31', after, marketTz: 'Europe/Moscow' });
      pages++;
      for (const row of reply.data) {
        expect(row.days.length).toBe(row.units.length);
        for (const d of unpackCloses(row).dates) all.push(`${row.id}:${d}`);
      }
      expect(reply.data.reduce((n, r) => n + r.days.length, 0)).toBeLessThanOrEqual(MAX_CLOSES_PER_REPLY);
      after = reply.next_after ?? undefined;
    } while (after);
    const days = (Date.parse('2024-05-31') - Date.parse('2000-01-01')) / 86_400_000 + 1;
    expect(pages).toBe(Math.ceil((days + 2) / MAX_CLOSES_PER_REPLY));
    expect(all).toHaveLength(days + 2);
    expect(new Set(all).size).toBe(all.length);
    expect(all[0]).toBe(`${ids.AAA}:2000-01-01`);
    expect(all.at(-1)).toBe(`${ids.BBB}:2024-02-01`);
  });
});
