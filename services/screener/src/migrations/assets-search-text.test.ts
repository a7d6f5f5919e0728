import { type Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { migrations } from './index.js';

/** The expression the generated column had (0001); the trigger must keep giving the same text. */
const GENERATED = `translate(lower(ticker || E'\\n' || coalesce(isin, '') || E'\\n' || name || E'\\n' || coalesce(short_name, '') || E'\\n' || coalesce(latin_name, '')), 'ё', 'е')`;

describe('assets.search_text (trigger, real Postgres)', () => {
  let db: Db;
  useTestDatabase('scr_search_text', migrations, (opened) => (db = opened));

  const row = async (id: string) =>
    (await db.query<{ search_text: string; expected: string }>(`select search_text, ${GENERATED} as expected from assets where id = $1`, [id]))[0]!;

  it('is derived from the names on insert and on every update of a name, and cannot be written directly', async () => {
    const [{ id } = { id: '' }] = await db.query<{ id: string }>(
      `insert into assets (type, ticker, isin, name, short_name, latin_name, currency)
       values ('share', 'ЁЖ', 'RU000A0JX0J2', 'Ёлка Групп', null, 'Yolka', 'RUB') returning id::text`,
    );
    expect(await row(id)).toEqual({ search_text: 'еж\nru000a0jx0j2\nелка групп\n\nyolka', expected: 'еж\nru000a0jx0j2\nелка групп\n\nyolka' });

    for (const set of [`name = 'Новое Имя'`, `short_name = 'Ёж'`, `isin = null`, `latin_name = null, ticker = 'NEW'`]) {
      await db.query(`update assets set ${set} where id = $1`, [id]);
      const r = await row(id);
      expect(r.search_text).toBe(r.expected);
    }
    await db.query(`update assets set search_text = 'forged' where id = $1`, [id]);
    expect((await row(id)).search_text).toBe((await row(id)).expected);
  });

  it('is left as it is by a rate update, which stays a HOT update', async () => {
    const [{ id } = { id: '' }] = await db.query<{ id: string }>(
      `insert into assets (type, ticker, name, currency) values ('share', 'HOT1', 'Hot One', 'RUB') returning id::text`,
    );
    const before = await row(id);
    // The backend's own counter (pending stats may hold earlier transactions too: the difference is this update).
    const hot = await db.transaction(async (tx) => {
      const count = async () =>
        Number((await tx.query<{ hot: string }>(`select n_tup_hot_upd::text as hot from pg_stat_xact_user_tables where relname = 'assets'`))[0]!.hot);
      const was = await count();
      await tx.query('update assets set current_rate = 10.5, rate_updated_at = now(), updated_at = now() where id = $1', [id]);
      return (await count()) - was;
    });
    expect(hot).toBe(1);
    expect(await row(id)).toEqual(before);
  });
});
