/**
 * Portfolio statistics through HTTP (real gateway, portfolios service and screener over real NATS and
 * Postgres): a worked example whose figures are computed by hand below, and the cache priority
 * (hydrated -> state -> computed) with its invalidation by deal changes, newer prices and time.
 */
import { randomUUID } from 'node:crypto';
import { type GetStatisticsReply, getStatisticsReplySchema } from '@invest/contracts';
import { type Bus } from '@invest/platform';
import { type PortfoliosApp } from '@invest/portfolios/portfolios.app';
import { publishRates } from '@invest/portfolios/testing/portfolios-test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'statistics-e2e-secret-0123456789-0123456789';
const ALICE = `alice-${randomUUID()}`;
/**
 * The portfolios service's clock: today is 2025-01-01 in UTC (the valuation date, terminal XIRR flow) and already
 * 2025-01-02 in Moscow (00:30), so a deal may be dated 2025-01-02.
 */
const NOW = new Date('2025-01-01T21:30:00Z');

let portfolios: PortfoliosApp;
let bus: Bus;
let base: string;
let token: string;
const id: Record<string, number> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
async function api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(path, base), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** The statistics as the contract reads them: money and quantities as exact decimal text (JSON numbers over HTTP). */
const statistics = async (portfolioId: number): Promise<GetStatisticsReply> => {
  const r = await api<GetStatisticsReply>('GET', `/api/portfolios/${portfolioId}/statistics`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return getStatisticsReplySchema.parse(r.body);
};
const deal = async (portfolioId: number, body: Record<string, unknown>): Promise<number> => {
  const r = await api('POST', `/api/portfolios/${portfolioId}/deals`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.id;
};
const share = (ticker: string) => ({ type: 'share', id: id[ticker] });
const localRate = async (ticker: string) =>
  (await portfolios.db.query<{ current_rate: number | null }>('select current_rate from assets where ticker = $1', [ticker]))[0]?.current_rate;
/** Rates newer than anything the screener's demo data carries. */
let asOfSeconds = 0;
const setPrices = async (prices: Record<string, [rate: number, change24h: number]>) => {
  asOfSeconds += 1;
  await publishRates(
    bus,
    Object.entries(prices).map(([ticker, [rate, change]]) => ({
      assetType: 'share' as const,
      assetId: id[ticker]!,
      ticker,
      currency: 'RUB',
      rate,
      priceChangePercentage24h: change,
      asOf: new Date(Date.now() + asOfSeconds * 1000).toISOString(),
    })),
  );
  // The consumer applies them asynchronously; wait until the price table has them (works in hooks too).
  const deadline = Date.now() + 5000;
  for (const [ticker, [rate]] of Object.entries(prices)) {
    while ((await localRate(ticker)) !== rate) {
      if (Date.now() > deadline) throw new Error(`rate ${rate} for ${ticker} never reached the price table`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
};

/** Spreadsheet XIRR's equation, written out independently: sum CF / (1 + r)^(days / 365). */
function npv(flows: [string, number][], r: number): number {
  const t0 = Date.parse(flows[0]![0]);
  return flows.reduce((s, [d, cf]) => s + cf / (1 + r) ** ((Date.parse(d) - t0) / 86_400_000 / 365), 0);
}

let stack: FullStack;
beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwst',
    tickers: ['SBER', 'GAZP', 'LKOH', 'YNDX'],
    portfolios: { clock: () => NOW },
    gateway: { auth: { jwtSecret: SECRET }, readyServices: ['portfolios'] },
  });
  ({ portfolios, base, bus } = stack);
  Object.assign(id, stack.shareIds);
  token = await mintDevToken(ALICE, SECRET);
});

afterAll(() => stack?.close());

describe('statistics: worked example', () => {
  let pid: number;
  let stats: GetStatisticsReply;

  beforeAll(async () => {
    pid = (await api('POST', '/api/portfolios', { name: 'Worked example', currency_code: 'RUB' })).body.data.id;
    await setPrices({ SBER: [280, 2], GAZP: [150, -1] });
    // SBER: two buys, a partial sell, a dividend and the tax on it.
    await deal(pid, { type: 'buy', assetable: share('SBER'), quantity: 10, price: 250, commission: 5, date: '2024-01-10' });
    await deal(pid, { type: 'buy', assetable: share('SBER'), quantity: 10, price: 270, commission: 5, date: '2024-02-10' });
    await deal(pid, { type: 'sell', assetable: share('SBER'), quantity: 5, price: 300, commission: 3, date: '2024-03-15' });
    await deal(pid, { type: 'dividend', assetable: share('SBER'), quantity: 15, price: 33.3, date: '2024-07-20' });
    await deal(pid, { type: 'tax', assetable: share('SBER'), quantity: 1, price: 65, date: '2024-07-20' });
    // GAZP: one buy and a custody fee.
    await deal(pid, { type: 'buy', assetable: share('GAZP'), quantity: 100, price: 160, commission: 10, date: '2024-04-01' });
    await deal(pid, { type: 'fee', assetable: share('GAZP'), quantity: 1, price: 50, date: '2024-05-01' });
    stats = await statistics(pid);
  });

  it('per ticker: SBER', () => {
    // Buys: 10 x 250 + 10 x 270 = 5200 for 20 -> average 260.
    // Sell 5 @ 300: fixed = 5 x (300 - 260) = 200; cost left 5200 - 5 x 260 = 3900 for 15 (average stays 260).
    // Now 15 x 280 = 4200 -> current income 4200 - 3900 = 300.
    // Dividend 15 x 33.3 = 499.5; tax 65; commissions 5 + 5 + 3 = 13.
    // Total income 200 + 300 + 499.5 - 0 - 13 - 65 = 921.5.
    const sber = stats.data.tickers.find((t) => t.ticker === 'SBER');
    expect(sber).toMatchObject({
      type: 'share',
      symbol: '₽',
      totalQuantity: '15',
      currentPrice: 280,
      currentNetworth: '4200',
      currentIncome: '300',
      spent: '3900',
      fixed: '200',
      accruals: '499.5',
      expenses: '0',
      commissions: '13',
      taxes: '65',
      averageWeightedPrice: '260',
      price_change_percentage_24h: 2,
      totalIncome: '921.5',
      dealsCount: 5,
    });
    expect(sber!.title).toMatch(/Сбербанк/i);
    // 4200 of 4200 + 15000.
    expect(sber!.weight).toBeCloseTo(21.875, 4);
  });

  it('per ticker: GAZP', () => {
    // 100 x 160 = 16000 (average 160); now 100 x 150 = 15000 -> -1000; fee 50; commission 10.
    // Total income -1000 - 50 - 10 = -1060.
    expect(stats.data.tickers.find((t) => t.ticker === 'GAZP')).toMatchObject({
      totalQuantity: '100',
      currentPrice: 150,
      currentNetworth: '15000',
      currentIncome: '-1000',
      spent: '16000',
      fixed: '0',
      accruals: '0',
      expenses: '50',
      commissions: '10',
      taxes: '0',
      averageWeightedPrice: '160',
      price_change_percentage_24h: -1,
      totalIncome: '-1060',
      weight: 78.125,
    });
    // Largest position first.
    expect(stats.data.tickers.map((t) => t.ticker)).toEqual(['GAZP', 'SBER']);
  });

  it('totals', () => {
    expect(stats.data.totals).toMatchObject({
      currency: 'RUB',
      totalSpent: '19900', // 3900 + 16000
      totalCurrentNetworth: '19200', // 4200 + 15000
      totalCurrentIncome: '-700', // 300 - 1000
      totalFixed: '200',
      totalAccruals: '499.5',
      totalExpenses: '50',
      totalCommissions: '23', // 13 + 10
      totalTaxes: '65',
      totalIncome: '-138.5', // -700 + 200 + 499.5 - 50 - 23 - 65
      totalInvested: '21200', // 2500 + 2700 + 16000
      positionsCount: 2,
      closedPositionsCount: 0,
      dealsCount: 7,
      unpricedTickers: [],
      valuationDate: '2025-01-01',
      xirrError: null,
    });
    // -138.5 / 21200 x 100
    expect(stats.data.totals.totalIncomePercentage).toBeCloseTo(-0.6533, 3);
    // SBER 4200 - 4200 / 1.02 = 82.3529; GAZP 15000 - 15000 / 0.99 = -151.5152; sum -69.1622.
    expect(Number(stats.data.totals.change24h)).toBeCloseTo(-69.1622, 3);
    // -69.1622 / (19200 + 69.1622) x 100
    expect(stats.data.totals.changePercentage24h).toBeCloseTo(-0.3589, 3);
  });

  it('xirr solves the flows: -2505, -2705, +1497, -16010, -50, +434.5 and the 19200 held on 2025-01-01', () => {
    // Buys pay amount + commission, the sell brings 1500 - 3, the dividend day nets 499.5 - 65.
    const flows: [string, number][] = [
      ['2024-01-10', -2505],
      ['2024-02-10', -2705],
      ['2024-03-15', 1497],
      ['2024-04-01', -16010],
      ['2024-05-01', -50],
      ['2024-07-20', 434.5],
      ['2025-01-01', 19200],
    ];
    const r = stats.data.totals.xirr!;
    expect(r).not.toBeNull();
    expect(Math.abs(npv(flows, r))).toBeLessThan(1e-4);
    // A loss of 138.5 on about 21,000 held for under a year: a small negative rate.
    expect(r).toBeLessThan(0);
    expect(r).toBeGreaterThan(-0.02);
  });

  it('health', () => {
    // Weights 0.21875 and 0.78125: HHI = 0.0478515625 + 0.6103515625 = 0.658203125 (one asset class: class HHI 1).
    expect(stats.data.health).toMatchObject({
      concentrationScore: 65.82, // 100 x HHI
      diversificationScore: 23.93, // 100 x 0.7 x (1 - 0.658203125) = 23.9258
      largestPositionWeight: 78.125,
      assetClasses: [{ type: 'share', value: '19200', weight: 100, positionsCount: 2 }],
      topPositions: [
        { ticker: 'GAZP', type: 'share', value: '15000', weight: 78.125 },
        { ticker: 'SBER', type: 'share', value: '4200', weight: 21.875 },
      ],
    });
    expect(stats.data.health.herfindahlIndex).toBeCloseTo(0.658203, 5);
  });

  it('a single buy dated on the valuation day, and an empty portfolio: XIRR has no solution and says why', async () => {
    const p = (await api('POST', '/api/portfolios', { name: 'Only today', currency_code: 'RUB' })).body.data.id;
    await deal(p, { type: 'buy', assetable: share('LKOH'), quantity: 1, price: 7000, date: '2025-01-01' });
    const s = await statistics(p);
    // One buy on the valuation date and its value on the same date: all flows on one day.
    expect(s.data.totals.xirr).toBeNull();
    expect(s.data.totals.xirrError?.code).toBe('single_date');

    const empty = (await api('POST', '/api/portfolios', { name: 'Empty', currency_code: 'RUB' })).body.data.id;
    const e = await statistics(empty);
    expect(e.data.tickers).toEqual([]);
    expect(e.data.totals).toMatchObject({ totalCurrentNetworth: '0', xirr: null, xirrError: { code: 'no_flows' } });
    expect(e.data.health.diversificationScore).toBeNull();
  });
});

describe('statistics: valuation date and exact money', () => {
  it('a buy dated tomorrow in UTC (today in Moscow) is valued on its own date: no absurd XIRR', async () => {
    // Valued on 2025-01-01, before the buy, a 3.4 % loss read as xirr 293047.86 (at 250 instead: no_root).
    await setPrices({ YNDX: [289.8, 0] });
    const p = (await api('POST', '/api/portfolios', { name: 'Moscow after midnight', currency_code: 'RUB' })).body.data.id;
    await deal(p, { type: 'buy', assetable: share('YNDX'), quantity: 1, price: 300, date: '2025-01-02' });
    const s = await statistics(p);
    expect(s.data.totals).toMatchObject({ valuationDate: '2025-01-02', totalCurrentIncome: '-10.2', xirr: null, xirrError: { code: 'single_date' } });
    const cheap = (await api('POST', '/api/portfolios', { name: 'Moscow, cheaper', currency_code: 'RUB' })).body.data.id;
    await deal(cheap, { type: 'buy', assetable: share('YNDX'), quantity: 1, price: 250, date: '2025-01-02' });
    expect((await statistics(cheap)).data.totals).toMatchObject({ valuationDate: '2025-01-02', xirr: null, xirrError: { code: 'single_date' } });
    // With a buy a year earlier as well, the rate is the small loss it is.
    await deal(p, { type: 'buy', assetable: share('YNDX'), quantity: 1, price: 300, date: '2024-01-02' });
    const year = await statistics(p);
    expect(year.data.totals.valuationDate).toBe('2025-01-02');
    expect(year.data.totals.xirr).toBeLessThan(0);
    // 600 paid, 579.6 held: 20.4 lost on the 300 held for a year, about -6.8 %.
    expect(year.data.totals.xirr).toBeGreaterThan(-0.1);
  });

  it('answers money with exactly its digits: commission 36716396.59, not 36716396.59000001', async () => {
    await setPrices({ YNDX: [289.8, 0] });
    const p = (await api('POST', '/api/portfolios', { name: 'Exact statistics', currency_code: 'RUB' })).body.data.id;
    await deal(p, { type: 'buy', assetable: share('YNDX'), quantity: 1, price: 42290747.88, commission: 36716396.59, date: '2024-06-03' });
    await deal(p, { type: 'buy', assetable: share('YNDX'), quantity: 0.1, price: 0.2, date: '2024-06-04' });
    const res = await fetch(new URL(`/api/portfolios/${p}/statistics`, base), { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toContain('"commissions":36716396.59,');
    expect(text).toContain('"totalCommissions":36716396.59,');
    expect(text).toContain('"totalSpent":42290747.9,');
    expect(text).toContain('"totalInvested":42290747.9,');
    expect(text).toContain('"totalQuantity":1.1,');
    expect(text).toContain('"currentNetworth":318.78,');
  });
});

describe('statistics caches', () => {
  let pid: number;
  const expire = (table: 'statistics_hydrated' | 'statistics_state') =>
    portfolios.db.query(`update ${table} set expires_at = now() - interval '1 second' where portfolio_id = $1`, [pid]);
  const cacheRows = async () =>
    (
      await portfolios.db.query<{ h: string; s: string }>(
        'select (select count(*) from statistics_hydrated where portfolio_id = $1)::text as h, (select count(*) from statistics_state where portfolio_id = $1)::text as s',
        [pid],
      )
    )[0];

  beforeAll(async () => {
    pid = (await api('POST', '/api/portfolios', { name: 'Caches', currency_code: 'RUB' })).body.data.id;
    await setPrices({ SBER: [300, 0], LKOH: [7000, 0] });
    await deal(pid, { type: 'buy', assetable: share('SBER'), quantity: 10, price: 250, date: '2024-06-03' });
  });

  it('reads hydrated -> state -> computed, and keeps them for 50 seconds and 7 days', async () => {
    const first = await statistics(pid);
    expect(first.meta.source).toBe('computed');
    expect(first.data.totals.totalCurrentNetworth).toBe('3000');
    const second = await statistics(pid);
    expect(second.meta.source).toBe('hydrated');
    expect(second.data).toEqual(first.data);

    const [ttl] = await portfolios.db.query<{ h: number; s: number }>(
      `select extract(epoch from h.expires_at - h.computed_at)::float8 as h, extract(epoch from s.expires_at - s.computed_at)::float8 as s
       from statistics_hydrated h join statistics_state s using (portfolio_id) where portfolio_id = $1`,
      [pid],
    );
    expect(ttl!.h).toBeCloseTo(50, 0);
    expect(ttl!.s).toBeCloseTo(7 * 24 * 3600, 0);

    await expire('statistics_hydrated');
    const third = await statistics(pid);
    expect(third.meta.source).toBe('state');
    expect(third.data).toEqual(first.data);
    expect(third.meta.state_computed_at).toBe(first.meta.state_computed_at);
    expect((await statistics(pid)).meta.source).toBe('hydrated');

    await expire('statistics_hydrated');
    await expire('statistics_state');
    expect((await statistics(pid)).meta.source).toBe('computed');
  });

  it('a newer price invalidates the hydrated answer only', async () => {
    expect((await statistics(pid)).meta.source).toBe('hydrated');
    await setPrices({ SBER: [310, 3.3] });
    const after = await statistics(pid);
    expect(after.meta.source).toBe('state');
    expect(after.data.totals.totalCurrentNetworth).toBe('3100'); // 10 x 310
    expect(after.data.tickers[0]!.price_change_percentage_24h).toBe(3.3);
    // A price of an asset the portfolio does not hold changes nothing.
    await setPrices({ LKOH: [7100, 1] });
    expect((await statistics(pid)).meta.source).toBe('hydrated');
  });

  it('a new deal and a deleted deal invalidate both caches in their transaction', async () => {
    expect((await statistics(pid)).meta.source).toBe('hydrated');
    const version = (await statistics(pid)).meta.stats_version;
    const dealId = await deal(pid, { type: 'buy', assetable: share('SBER'), quantity: 5, price: 300, date: '2024-07-01' });
    expect(await cacheRows()).toEqual({ h: '0', s: '0' });
    const afterAdd = await statistics(pid);
    expect(afterAdd.meta.source).toBe('computed');
    expect(afterAdd.meta.stats_version).toBe(version + 1);
    // 15 x 310; spent 2500 + 1500.
    expect(afterAdd.data.totals).toMatchObject({ totalCurrentNetworth: '4650', totalSpent: '4000', dealsCount: 2 });
    expect((await statistics(pid)).meta.source).toBe('hydrated');

    expect((await api('DELETE', `/api/portfolios/${pid}/deals/${dealId}`)).status).toBe(204);
    const afterDelete = await statistics(pid);
    expect(afterDelete.meta.source).toBe('computed');
    expect(afterDelete.data.totals).toMatchObject({ totalCurrentNetworth: '3100', totalSpent: '2500', dealsCount: 1 });
  });

  it('a rejected deal (oversell) changes nothing: the caches stay valid', async () => {
    expect((await statistics(pid)).meta.source).toBe('hydrated');
    const r = await api('POST', `/api/portfolios/${pid}/deals`, { type: 'sell', assetable: share('SBER'), quantity: 11, price: 300, date: '2024-08-01' });
    expect(r.status).toBe(422);
    expect((await statistics(pid)).meta.source).toBe('hydrated');
  });

  it('a currency change invalidates the cached answer', async () => {
    expect((await statistics(pid)).meta.source).toBe('hydrated');
    expect((await api('PATCH', `/api/portfolios/${pid}`, { currency_code: 'USD' })).status).toBe(200);
    const s = await statistics(pid);
    expect(s.meta.source).toBe('computed');
    expect(s.data.totals.currency).toBe('USD');
  });
});
