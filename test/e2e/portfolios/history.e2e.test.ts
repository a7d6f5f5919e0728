/**
 * Value over time through HTTP (real gateway, portfolios and screener over real NATS and Postgres): the days of a
 * worked example against closes stored in the screener (a partial sale, a holiday carried over), the ranges, the
 * cache following a deal, ownership (another user's portfolio is a 404) and a bad range (422).
 */
import { randomUUID } from 'node:crypto';
import { type GetHistoryReply, getHistoryReplySchema } from '@invest/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { FakeProviders } from '@invest/screener/testing/fake-providers';
import { type FullStack, startFullStack } from '../support/full-stack.js';
import { gatewayApi } from '../support/gateway-api.js';

const SECRET = 'history-e2e-secret-0123456789-0123456789';
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;

let stack: FullStack;
let fake: FakeProviders;
let base: string;
let pid: number;
const tokens: Record<string, string> = {};
const id: Record<string, number> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked against the contracts below
const api = <T = any>(method: string, path: string, opts: { as?: string; body?: unknown } = {}): Promise<{ status: number; body: T; text: string }> =>
  gatewayApi(base, (user) => Promise.resolve(tokens[user]!))(method, path, { user: opts.as ?? ALICE, body: opts.body });
const deal = async (body: Record<string, unknown>) => {
  const r = await api('POST', `/api/portfolios/${pid}/deals`, { body });
  expect(r.status, r.text).toBe(201);
};
const history = async (range?: string): Promise<GetHistoryReply> => {
  const r = await api('GET', `/api/portfolios/${pid}/history${range ? `?range=${range}` : ''}`);
  expect(r.status, r.text).toBe(200);
  return getHistoryReplySchema.parse(r.body);
};
const at = (h: GetHistoryReply, date: string) => h.data.points.find((p) => p.date === date);
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  // The screener's MOEX ISS is the fake one: the backfill below reads history from it.
  fake = await FakeProviders.start();
  stack = await startFullStack({
    name: 'gwhist',
    tickers: ['SBER', 'LKOH'],
    screener: { providers: { MOEX_ISS_URL: fake.moexUrl, MOEX_ISS_MIN_INTERVAL_MS: 0 } },
    gateway: { auth: { jwtSecret: SECRET }, readyServices: ['portfolios'] },
  });
  base = stack.base;
  Object.assign(id, stack.shareIds);
  tokens[ALICE] = await mintDevToken(ALICE, SECRET);
  tokens[BOB] = await mintDevToken(BOB, SECRET);
  // SBER's closes of a week in March 2024: 8 March (a Friday) is a holiday, so Thursday's close carries to Monday.
  await stack.screener.db.query(
    `insert into asset_daily_closes (asset_id, trade_date, close) select $1, d::date, c from unnest($2::text[], $3::numeric[]) as u(d, c)`,
    [id.SBER, ['2024-03-04', '2024-03-05', '2024-03-06', '2024-03-07', '2024-03-11'], [100, 130, 150, 140, 160]],
  );
  pid = (await api('POST', '/api/portfolios', { body: { name: 'History example', currency_code: 'RUB' } })).body.data.id;
  await deal({ type: 'buy', assetable: { type: 'share', id: id.SBER }, quantity: 10, price: 100, commission: 1, date: '2024-03-04' });
  await deal({ type: 'buy', assetable: { type: 'share', id: id.SBER }, quantity: 10, price: 130, date: '2024-03-05' });
  await deal({ type: 'sell', assetable: { type: 'share', id: id.SBER }, quantity: 5, price: 150, date: '2024-03-06' });
});

afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

describe('value over time', () => {
  it('answers every day since the first deal: value at the day’s close, invested at the average cost', async () => {
    const all = await history();
    expect(all.meta).toMatchObject({ portfolio_id: pid, range: 'ALL', step_days: 1, complete: true, source: 'computed' });
    expect(all.data.currency).toBe('RUB');
    expect(all.data.points.slice(0, 8)).toEqual([
      { date: '2024-03-04', value: '1000', invested: '1000' },
      { date: '2024-03-05', value: '2600', invested: '2300' },
      // 5 of 20 sold at the average 115: 15 held cost 1725.
      { date: '2024-03-06', value: '2250', invested: '1725' },
      { date: '2024-03-07', value: '2100', invested: '1725' },
      { date: '2024-03-08', value: '2100', invested: '1725' },
      { date: '2024-03-09', value: '2100', invested: '1725' },
      { date: '2024-03-10', value: '2100', invested: '1725' },
      { date: '2024-03-11', value: '2400', invested: '1725' },
    ]);
    const days = (Date.parse(today()) - Date.parse('2024-03-04')) / 86_400_000 + 1;
    expect(all.data.points).toHaveLength(days);
    // The last day is today at the current price, the holdings' value.
    const holdings = (await api('GET', `/api/portfolios/${pid}/holdings`)).body.data.totals;
    expect(all.data.points.at(-1)).toEqual({ date: today(), value: String(holdings.value), invested: '1725' });
  });

  it('1M, 6M and 1Y end today and start that much earlier; a second read comes from the cache', async () => {
    const all = await history('ALL');
    expect(all.meta.source).toBe('cache');
    for (const [range, months] of [['1M', 1], ['6M', 6], ['1Y', 12]] as const) {
      const h = await history(range);
      expect(h.meta.range).toBe(range);
      const start = new Date();
      start.setUTCMonth(start.getUTCMonth() - months);
      expect(h.data.points.length, range).toBeGreaterThanOrEqual(months * 28);
      expect(h.data.points.length, range).toBeLessThanOrEqual(months * 31 + 1);
      expect(h.data.points.at(-1)).toEqual(all.data.points.at(-1));
      expect(h.data.points).toEqual(all.data.points.slice(-h.data.points.length));
    }
  });

  it('a new deal is in the next answer', async () => {
    await deal({ type: 'buy', assetable: { type: 'share', id: id.SBER }, quantity: 1, price: 160, date: '2024-03-11' });
    const all = await history();
    expect(all.meta.source).toBe('computed');
    expect(at(all, '2024-03-10')).toEqual({ date: '2024-03-10', value: '2100', invested: '1725' });
    expect(at(all, '2024-03-11')).toEqual({ date: '2024-03-11', value: '2560', invested: '1885' });
  });

  it('money is written as JSON numbers', async () => {
    const r = await api('GET', `/api/portfolios/${pid}/history?range=ALL`);
    expect(r.text).toContain('{"date":"2024-03-06","value":2250,"invested":1725}');
  });
});

describe('value over time: who may ask, and how', () => {
  it("another user's portfolio, or one that does not exist, is a 404", async () => {
    const bob = await api('GET', `/api/portfolios/${pid}/history`, { as: BOB });
    expect(bob.status).toBe(404);
    expect(bob.body).toMatchObject({ message: 'Portfolio not found.' });
    expect((await api('GET', '/api/portfolios/999999999/history')).status).toBe(404);
  });

  it('a range other than 1M, 6M, 1Y, ALL is a 422 naming it', async () => {
    for (const range of ['2Y', '1m', '']) {
      const r = await api('GET', `/api/portfolios/${pid}/history?range=${range}`);
      if (range === '') expect(r.status).toBe(200);
      else {
        expect(r.status, range).toBe(422);
        expect(Object.keys(r.body.errors)).toEqual(['range']);
      }
    }
  });

  it('a portfolio without deals has no points', async () => {
    const empty = (await api('POST', '/api/portfolios', { as: BOB, body: { name: 'Empty', currency_code: 'USD' } })).body.data.id as number;
    const r = await api('GET', `/api/portfolios/${empty}/history?range=1Y`, { as: BOB });
    expect(r.status, r.text).toBe(200);
    expect(getHistoryReplySchema.parse(r.body).data).toEqual({ currency: 'USD', points: [] });
  });
});

describe('value over time: an asset without closes', () => {
  it('is backfilled from MOEX ISS history, paged, once; meanwhile it counts at cost and the answer says so', async () => {
    const lkoh = { type: 'share', id: id.LKOH };
    await stack.screener.db.query('delete from asset_daily_closes where asset_id = $1', [id.LKOH]);
    const bought = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10);
    pid = (await api('POST', '/api/portfolios', { body: { name: 'Backfill', currency_code: 'RUB' } })).body.data.id;
    await deal({ type: 'buy', assetable: lkoh, quantity: 2, price: 5000, date: bought });

    const first = await history('ALL');
    expect(first.meta.complete).toBe(false);
    // Until its history is in, the position counts at cost (the last day at the current price).
    expect(first.data.points.slice(0, -1).every((p) => p.value === '10000' && p.invested === '10000')).toBe(true);

    let later = first;
    await expect
      .poll(async () => (later = await history('ALL')).meta.complete, { timeout: 15_000 })
      .toBe(true);
    const stored = await stack.screener.db.query<{ date: string; close: string }>(
      'select trade_date::text as date, close::text from asset_daily_closes where asset_id = $1 order by trade_date',
      [id.LKOH],
    );
    // About 140 weekdays since the deal: two ISS pages of 100, asked with start=100 for the second.
    expect(stored.length).toBeGreaterThan(130);
    const asked = fake.requests.filter((r) => r.path === '/iss/history/engines/stock/markets/shares/boards/TQBR/securities/LKOH.json');
    expect(asked.map((r) => r.query.get('start') ?? '0')).toEqual(['0', '100']);
    expect(asked[0]!.query.get('from')).toBe(bought);
    // A weekday's value is 2 × that day's stored close; the Saturday after carries it.
    const friday = stored.find((c) => new Date(`${c.date}T00:00:00Z`).getUTCDay() === 5 && c.date > bought)!;
    const saturday = new Date(Date.parse(`${friday.date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const value = String(2 * Number(friday.close));
    expect(at(later, friday.date)).toEqual({ date: friday.date, value, invested: '10000' });
    expect(at(later, saturday)).toEqual({ date: saturday, value, invested: '10000' });
    // Stored once: asking again fetches nothing more.
    await history('1M');
    expect(fake.requests.filter((r) => r.path.includes('/iss/history/')).length).toBe(2);
  });
});
