import { type Db, openDatabase } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CoinGeckoClient } from '../market-data/coingecko.client.js';
import type { MoexIssClient } from '../market-data/moex-iss.client.js';
import { migrations } from '../migrations/index.js';
import type { ScreenerJobDeps } from './job-deps.js';
import { createSharesDividendsJob } from './shares-dividends.job.js';

const COLUMNS = ['secid', 'isin', 'registryclosedate', 'value', 'currencyid'];

describe('update:shares-dividends', () => {
  let db: Db;
  let drop: () => Promise<void>;
  /** ISS answers by SECID (a `dividends` block with these rows). */
  let answers: Record<string, unknown[][]>;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    const t = await createTestDatabase('scr_divs');
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations });
  });
  afterAll(async () => {
    await db?.close();
    await drop?.();
  });
  beforeEach(async () => {
    await db.query('drop trigger if exists fail_dividends on dividends');
    await db.query('truncate assets cascade');
    ids.clear();
    for (const ticker of ['AAAA', 'BBBB', 'CCCC']) {
      const [row] = await db.query<{ id: string }>(
        `insert into assets (type, ticker, name, currency, current_rate) values ('share', $1, $1, 'RUB', 100) returning id::text`,
        [ticker],
      );
      await db.query(`insert into shares (asset_id, category_id) values ($1, (select id from share_categories where slug = 'ordinary'))`, [row!.id]);
      ids.set(ticker, row!.id);
    }
    answers = {};
    paged = {};
    asked.length = 0;
  });
  /** ISS answers by SECID and `start`, cursor included (overrides `answers`). */
  let paged: Record<string, (start: number) => unknown> = {};
  const asked: string[] = [];

  const job = () => {
    const moex = {
      dividends: async (secid: string, start: number) => {
        asked.push(`${secid}@${start}`);
        return paged[secid]?.(start) ?? { dividends: { columns: COLUMNS, data: answers[secid] ?? [] } };
      },
    };
    const deps: ScreenerJobDeps = {
      db,
      logger: createLogger('screener-divs-test', 'silent'),
      marketTz: 'Europe/Moscow',
      moex: moex as unknown as MoexIssClient,
      coingecko: {} as CoinGeckoClient,
      mainCoins: [],
    };
    return createSharesDividendsJob(deps);
  };
  const dividends = (ticker: string) =>
    db.query<{ d: string; value: string; currency: string }>(
      `select to_char(record_date, 'YYYY-MM-DD') as d, value::text, currency from dividends where asset_id = $1 order by record_date, currency`,
      [ids.get(ticker)],
    );
  const synced = async (ticker: string) =>
    (await db.query<{ at: string | null }>('select dividends_synced_at::text as at from shares where asset_id = $1', [ids.get(ticker)]))[0]!.at;

  it('keeps two payments with the same record date and value in different currencies', async () => {
    answers.AAAA = [
      ['AAAA', null, '2024-05-10', 10, 'RUB'],
      ['AAAA', null, '2024-05-10', 10, 'USD'],
      ['AAAA', null, '2024-05-10', 10, 'SUR'],
    ];
    answers.BBBB = [['BBBB', null, '2024-06-01', 3.5, 'RUB']];
    const summary = await job().run([]);
    expect(summary).toMatchObject({ fetched: 3, changed: 2, skipped: 0 });
    expect(await dividends('AAAA')).toEqual([
      { d: '2024-05-10', value: '10', currency: 'RUB' },
      { d: '2024-05-10', value: '10', currency: 'USD' },
    ]);
    expect(await dividends('BBBB')).toEqual([{ d: '2024-06-01', value: '3.5', currency: 'RUB' }]);
    expect(await synced('AAAA')).not.toBeNull();

    // A second run with the same list changes nothing; dropping the USD row removes only it.
    expect(await job().run([])).toMatchObject({ changed: 0 });
    answers.AAAA = [['AAAA', null, '2024-05-10', 10, 'RUB']];
    expect(await job().run([])).toMatchObject({ changed: 1 });
    expect(await dividends('AAAA')).toEqual([{ d: '2024-05-10', value: '10', currency: 'RUB' }]);
  });

  it('reports a share whose write fails and goes on with the others', async () => {
    answers.AAAA = [['AAAA', null, '2024-05-10', 10, 'RUB']];
    answers.BBBB = [['BBBB', null, '2024-06-01', 3.5, 'RUB']];
    answers.CCCC = [['CCCC', null, '2024-07-01', 1, 'RUB']];
    // The database refuses BBBB's rows (any write failure of one share).
    await db.query(`create or replace function fail_dividends() returns trigger language plpgsql as $$
      begin if new.asset_id = ${Number(ids.get('BBBB'))} then raise exception 'refused for the test'; end if; return new; end $$`);
    await db.query('create trigger fail_dividends before insert on dividends for each row execute function fail_dividends()');
    const summary = await job().run([]);
    expect(summary).toMatchObject({ fetched: 3, changed: 2, skipped: 1 });
    expect(summary.notes?.join('\n')).toMatch(/dividends BBBB: skipped, refused for the test/);
    expect(await dividends('AAAA')).toHaveLength(1);
    expect(await dividends('BBBB')).toEqual([]);
    expect(await synced('BBBB')).toBeNull();
    expect(await dividends('CCCC')).toHaveLength(1);
  });

  describe('a dividends cursor', () => {
    const cursor = (index: number, total: number) => ({ 'dividends.cursor': { columns: ['INDEX', 'TOTAL', 'PAGESIZE'], data: [[index, total, 100]] } });
    const stored = async () => {
      answers.AAAA = [['AAAA', null, '2030-05-10', 50, 'RUB']];
      await job().run(['--only', 'AAAA']);
      expect(await dividends('AAAA')).toHaveLength(1);
      return synced('AAAA');
    };

    it('is followed page by page to its end, and the whole list replaces the records', async () => {
      await stored();
      paged.AAAA = (start) => ({
        dividends: { columns: COLUMNS, data: [['AAAA', null, start === 0 ? '2024-05-10' : '2024-11-10', 5, 'RUB']] },
        ...cursor(start, 150),
      });
      expect(await job().run(['--only', 'AAAA'])).toMatchObject({ fetched: 2, skipped: 0 });
      expect(asked.slice(-2)).toEqual(['AAAA@0', 'AAAA@100']);
      expect((await dividends('AAAA')).map((d) => d.d)).toEqual(['2024-05-10', '2024-11-10']);
    });

    it('that does not advance is asked once more at most; the list is unknown and the records stay', async () => {
      const before = await stored();
      asked.length = 0;
      paged.AAAA = () => ({ dividends: { columns: COLUMNS, data: [['AAAA', null, '2024-05-10', 10, 'RUB']] }, ...cursor(0, 500) });
      const summary = await job().run(['--only', 'AAAA']);
      expect(asked.length).toBeLessThanOrEqual(2);
      expect(summary).toMatchObject({ skipped: 1, unknown: 1 });
      expect(summary.notes?.join('\n')).toMatch(/dividends AAAA: the dividends cursor does not advance.*previous records kept/);
      expect(await dividends('AAAA')).toEqual([{ d: '2030-05-10', value: '50', currency: 'RUB' }]);
      expect(await synced('AAAA')).toBe(before);
    });

    it('promising more pages than are followed: the part read does not replace the records', async () => {
      const before = await stored();
      paged.AAAA = (start) => ({ dividends: { columns: COLUMNS, data: [['AAAA', null, `2010-01-${String((start / 100) % 28 + 1).padStart(2, '0')}`, 1, 'RUB']] }, ...cursor(start, 5000) });
      const summary = await job().run(['--only', 'AAAA']);
      expect(summary).toMatchObject({ skipped: 1, unknown: 1 });
      expect(summary.notes?.join('\n')).toMatch(/dividends AAAA: the dividends cursor promises more than 10 pages/);
      expect(await dividends('AAAA')).toEqual([{ d: '2030-05-10', value: '50', currency: 'RUB' }]);
      expect(await synced('AAAA')).toBe(before);
    });
  });
});
