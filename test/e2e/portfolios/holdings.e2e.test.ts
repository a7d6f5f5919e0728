/**
 * Holdings through HTTP (real gateway, portfolios service and screener over real NATS and Postgres): the rows and
 * totals of a worked example computed by hand, the same figures in the statistics and the portfolio list, and
 * ownership (another user's portfolio is a 404).
 */
import { randomUUID } from 'node:crypto';
import { type GetHoldingsReply, getHoldingsReplySchema, getStatisticsReplySchema, listPortfoliosReplySchema } from '@invest/contracts';
import { type Bus } from '@invest/platform';
import { type PortfoliosApp } from '@invest/portfolios/portfolios.app';
import { publishRates } from '@invest/portfolios/testing/portfolios-test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from '../support/full-stack.js';
import { gatewayApi } from '../support/gateway-api.js';

const SECRET = 'holdings-e2e-secret-0123456789-0123456789';
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;
const NOW = new Date('2025-01-01T12:00:00Z');

let portfolios: PortfoliosApp;
let bus: Bus;
let base: string;
const tokens: Record<string, string> = {};
const id: Record<string, number> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked against the contracts below
const api = <T = any>(method: string, path: string, opts: { as?: string; body?: unknown } = {}): Promise<{ status: number; body: T; text: string }> =>
  gatewayApi(base, (user) => Promise.resolve(tokens[user]!))(method, path, { user: opts.as ?? ALICE, body: opts.body });
const deal = async (portfolioId: number, body: Record<string, unknown>) => {
  const r = await api('POST', `/api/portfolios/${portfolioId}/deals`, { body });
  expect(r.status, r.text).toBe(201);
};
const share = (ticker: string) => ({ type: 'share', id: id[ticker] });
const localRate = async (ticker: string) =>
  (await portfolios.db.query<{ current_rate: number | null }>('select current_rate from assets where ticker = $1', [ticker]))[0]?.current_rate;
const setPrices = async (prices: Record<string, [rate: number, change24h: number]>) => {
  await publishRates(
    bus,
    Object.entries(prices).map(([ticker, [rate, change]]) => ({
      assetType: 'share' as const,
      assetId: id[ticker]!,
      ticker,
      currency: 'RUB',
      rate,
      priceChangePercentage24h: change,
      asOf: new Date(Date.now() + 1000).toISOString(),
    })),
  );
  const deadline = Date.now() + 5000;
  for (const [ticker, [rate]] of Object.entries(prices)) {
    while ((await localRate(ticker)) !== rate) {
      if (Date.now() > deadline) throw new Error(`rate ${rate} for ${ticker} never reached the price table`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
};

let stack: FullStack;
let pid: number;
let holdings: GetHoldingsReply;
let raw: string;
beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwhd',
    tickers: ['SBER', 'GAZP', 'LKOH'],
    portfolios: { clock: () => NOW },
    gateway: { auth: { jwtSecret: SECRET }, readyServices: ['portfolios'] },
  });
  ({ portfolios, base, bus } = stack);
  Object.assign(id, stack.shareIds);
  tokens[ALICE] = await mintDevToken(ALICE, SECRET);
  tokens[BOB] = await mintDevToken(BOB, SECRET);

  pid = (await api('POST', '/api/portfolios', { body: { name: 'Holdings example', currency_code: 'RUB' } })).body.data.id;
  await setPrices({ SBER: [280, 2], GAZP: [150, -1], LKOH: [7000, 0.5] });
  // SBER: two buys, a partial sale, a dividend.
  await deal(pid, { type: 'buy', assetable: share('SBER'), quantity: 10, price: 250, commission: 5, date: '2024-01-10' });
  await deal(pid, { type: 'buy', assetable: share('SBER'), quantity: 10, price: 270, commission: 5, date: '2024-02-10' });
  await deal(pid, { type: 'sell', assetable: share('SBER'), quantity: 5, price: 300, commission: 3, date: '2024-03-15' });
  await deal(pid, { type: 'dividend', assetable: share('SBER'), quantity: 15, price: 33.3, date: '2024-07-20' });
  // GAZP: held, at a loss.
  await deal(pid, { type: 'buy', assetable: share('GAZP'), quantity: 100, price: 160, commission: 10, date: '2024-04-01' });
  // LKOH: bought and sold entirely (closed), with a dividend while held.
  await deal(pid, { type: 'buy', assetable: share('LKOH'), quantity: 2, price: 6500, date: '2024-01-05' });
  await deal(pid, { type: 'dividend', assetable: share('LKOH'), quantity: 2, price: 450, date: '2024-06-01' });
  await deal(pid, { type: 'sell', assetable: share('LKOH'), quantity: 2, price: 7100, date: '2024-08-01' });

  const r = await api('GET', `/api/portfolios/${pid}/holdings`);
  expect(r.status, r.text).toBe(200);
  raw = r.text;
  holdings = getHoldingsReplySchema.parse(r.body);
});

afterAll(() => stack?.close());

describe('holdings: worked example', () => {
  const row = (ticker: string) => holdings.data.rows.find((x) => x.ticker === ticker)!;

  it('an open position after a partial sale, with its dividends and realised result', () => {
    // 20 bought at an average of 260; 5 sold at 300: realised 5 x 40 = 200; 15 held cost 3900, worth 4200.
    expect(row('SBER')).toMatchObject({
      open: true,
      quantity: '15',
      average_price: '260',
      current_price: 280,
      value: '4200',
      invested: '3900',
      gain: '300',
      gain_percentage: 7.6923, // 300 / 3900
      day_change_percentage: 2,
      dividends: '499.5',
      realised: '200',
      deals_count: 4,
    });
    expect(Number(row('SBER').day_change)).toBeCloseTo(82.3529, 3); // 4200 - 4200 / 1.02
    expect(row('GAZP')).toMatchObject({ open: true, value: '15000', invested: '16000', gain: '-1000', gain_percentage: -6.25, weight: 78.125 });
    expect(row('SBER').weight).toBe(21.875);
  });

  it('a closed position: nothing held, its dividends and realised result kept, last in the list', () => {
    expect(holdings.data.rows.map((x) => x.ticker)).toEqual(['GAZP', 'SBER', 'LKOH']);
    expect(row('LKOH')).toMatchObject({ open: false, quantity: '0', value: '0', invested: '0', weight: 0, dividends: '900', realised: '1200', deals_count: 3 });
  });

  it('totals: value - invested = gain; result = gain + realised + dividends - costs', () => {
    expect(holdings.data.totals).toMatchObject({
      currency: 'RUB',
      value: '19200',
      invested: '19900',
      gain: '-700',
      gain_percentage: -3.5176, // -700 / 19900
      dividends: '1399.5', // 499.5 + 900
      realised: '1400', // 200 + 1200
      costs: '23', // commissions 5 + 5 + 3 + 10
      result: '2076.5', // -700 + 1400 + 1399.5 - 23
      positions_count: 2,
      closed_positions_count: 1,
      unpriced_tickers: [],
    });
    expect(holdings.meta.portfolio_id).toBe(pid);
    // Money is written as JSON numbers with exact digits.
    expect(raw).toContain('"value":19200,');
  });

  it('the statistics and the portfolio list answer the same figures', async () => {
    const stats = getStatisticsReplySchema.parse((await api('GET', `/api/portfolios/${pid}/statistics`)).body).data.totals;
    const t = holdings.data.totals;
    expect([t.value, t.invested, t.gain, t.dividends, t.realised, t.result, t.day_change]).toEqual([
      stats.totalCurrentNetworth,
      stats.totalSpent,
      stats.totalCurrentIncome,
      stats.totalAccruals,
      stats.totalFixed,
      stats.totalIncome,
      stats.change24h,
    ]);
    const list = listPortfoliosReplySchema.parse((await api('GET', '/api/portfolios')).body).data;
    expect(list.find((p) => p.id === pid)).toMatchObject({ value: t.value, invested: t.invested, gain: t.gain, gain_percentage: t.gain_percentage, positions_count: 2 });
  });

  it('follows a new deal and a new price', async () => {
    await deal(pid, { type: 'sell', assetable: share('GAZP'), quantity: 50, price: 170, date: '2024-09-01' });
    await setPrices({ GAZP: [140, -2] });
    const after = getHoldingsReplySchema.parse((await api('GET', `/api/portfolios/${pid}/holdings`)).body);
    // 50 sold at 170 with an average of 160: realised +500; 50 held cost 8000, worth 7000.
    expect(after.data.rows.find((x) => x.ticker === 'GAZP')).toMatchObject({ quantity: '50', invested: '8000', value: '7000', gain: '-1000', realised: '500' });
    expect(after.meta.stats_version).toBeGreaterThan(holdings.meta.stats_version);
  });
});

describe('holdings: ownership', () => {
  it("another user's portfolio, or one that does not exist, is a 404; their list does not show it", async () => {
    const bob = await api('GET', `/api/portfolios/${pid}/holdings`, { as: BOB });
    expect(bob.status).toBe(404);
    expect(bob.body).toMatchObject({ message: 'Portfolio not found.' });
    expect(bob.text).not.toContain('SBER');
    expect((await api('GET', '/api/portfolios/999999999/holdings')).status).toBe(404);
    expect((await api('GET', '/api/portfolios/abc/holdings')).status).toBe(404);
    const bobList = await api('GET', '/api/portfolios', { as: BOB });
    expect(bobList.body.data).toEqual([]);
  });

  it('a new portfolio without deals is worth 0 with no gain percentage', async () => {
    const empty = (await api('POST', '/api/portfolios', { as: BOB, body: { name: 'Empty', currency_code: 'USD' } })).body.data.id as number;
    const r = getHoldingsReplySchema.parse((await api('GET', `/api/portfolios/${empty}/holdings`, { as: BOB })).body);
    expect(r.data).toEqual({
      rows: [],
      totals: expect.objectContaining({ currency: 'USD', value: '0', invested: '0', gain: '0', gain_percentage: null, result: '0' }),
    });
    const list = await api('GET', '/api/portfolios', { as: BOB });
    expect(list.body.data).toEqual([expect.objectContaining({ id: empty, value: 0, invested: 0, gain: 0, gain_percentage: null })]);
  });
});
