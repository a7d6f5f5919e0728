/**
 * Portfolio dividends through HTTP (real gateway, portfolios and screener over real NATS and Postgres): the upcoming
 * dividends of the open positions with the amount due on the quantity (from the screener's dividends table), the
 * income received per year equal to the holdings' dividends, and ownership (another user's portfolio is a 404).
 */
import { randomUUID } from 'node:crypto';
import { getPortfolioDividendsReplySchema } from '@invest/contracts';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FullStack, startFullStack } from '../support/full-stack.js';
import { gatewayApi } from '../support/gateway-api.js';

const SECRET = 'dividends-e2e-secret-0123456789-0123456789';
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;
const NEXT_YEAR = new Date().getUTCFullYear() + 1;

let stack: FullStack;
const tokens: Record<string, string> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked against the contracts below
const api = <T = any>(method: string, path: string, opts: { as?: string; body?: unknown } = {}): Promise<{ status: number; body: T; text: string }> =>
  gatewayApi(stack.base, (user) => Promise.resolve(tokens[user]!))(method, path, { user: opts.as ?? ALICE, body: opts.body });

let pid: number;
beforeAll(async () => {
  stack = await startFullStack({ name: 'gwdiv', tickers: ['SBER', 'GAZP', 'LKOH'], gateway: { auth: { jwtSecret: SECRET }, readyServices: ['portfolios'] } });
  tokens[ALICE] = await mintDevToken(ALICE, SECRET);
  tokens[BOB] = await mintDevToken(BOB, SECRET);
  const ids = stack.shareIds;
  // The screener's dividends of these shares, made known: one past, two upcoming for SBER, one for the sold GAZP.
  await stack.screener.db.query('delete from dividends where asset_id = any($1::bigint[])', [[ids.SBER, ids.GAZP, ids.LKOH]]);
  await stack.screener.db.query(
    `insert into dividends (asset_id, record_date, value, currency, source) values
       ($1, '2020-07-01', 18.7, 'RUB', 'test'), ($1, $3, 34.84, 'RUB', 'test'), ($1, $4, 12.5, 'RUB', 'test'), ($2, $3, 10, 'RUB', 'test')`,
    [ids.SBER, ids.GAZP, `${NEXT_YEAR}-07-18`, `${NEXT_YEAR}-01-12`],
  );
  const created = await api('POST', '/api/portfolios', { body: { name: 'Income', currency_code: 'RUB' } });
  expect(created.status, created.text).toBe(201);
  pid = created.body.data.id;
  const deal = async (body: Record<string, unknown>) => {
    const r = await api('POST', `/api/portfolios/${pid}/deals`, { body });
    expect(r.status, r.text).toBe(201);
  };
  const share = (ticker: string) => ({ type: 'share', id: ids[ticker] });
  await deal({ type: 'buy', assetable: share('SBER'), quantity: '10', price: '250', date: '2023-03-01' });
  await deal({ type: 'buy', assetable: share('SBER'), quantity: '0.5', price: '260', date: '2024-03-01' });
  await deal({ type: 'dividend', assetable: share('SBER'), quantity: '10', price: '25', date: '2023-07-20' });
  await deal({ type: 'dividend', assetable: share('SBER'), quantity: '10.5', price: '33.3', date: '2024-07-20' });
  await deal({ type: 'buy', assetable: share('GAZP'), quantity: '5', price: '150', date: '2023-03-01' });
  await deal({ type: 'dividend', assetable: share('GAZP'), quantity: '5', price: '0.01', date: '2023-08-01' });
  await deal({ type: 'sell', assetable: share('GAZP'), quantity: '5', price: '160', date: '2024-01-10' });
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

describe('GET /api/portfolios/:id/dividends', () => {
  it('answers the upcoming dividends of open positions with the amount due, and the income per year', async () => {
    const r = await api('GET', `/api/portfolios/${pid}/dividends`);
    expect(r.status, r.text).toBe(200);
    const body = getPortfolioDividendsReplySchema.parse(r.body);
    const sber = { type: 'share', id: stack.shareIds.SBER };
    expect(body.meta).toEqual({ portfolio_id: pid, currency: 'RUB' });
    expect(body.data.expected.map(({ title: _title, ...e }) => e)).toEqual([
      { assetable: sber, ticker: 'SBER', record_date: `${NEXT_YEAR}-01-12`, payment_date: null, per_share: '12.5', currency: 'RUB', quantity: '10.5', amount: '131.25' },
      { assetable: sber, ticker: 'SBER', record_date: `${NEXT_YEAR}-07-18`, payment_date: null, per_share: '34.84', currency: 'RUB', quantity: '10.5', amount: '365.82' },
    ]);
    // Exact decimals stay strings on the wire.
    expect(r.text).toContain('"amount":"365.82"');
    expect(body.data.received_by_year).toEqual([
      { year: 2023, amount: '250.05' },
      { year: 2024, amount: '349.65' },
    ]);
    const holdings = await api('GET', `/api/portfolios/${pid}/holdings`);
    expect(holdings.status, holdings.text).toBe(200);
    expect(Number(holdings.body.data.totals.dividends)).toBe(250.05 + 349.65);
  });

  it('is a 404 for another user, and for a portfolio that does not exist', async () => {
    const other = await api('GET', `/api/portfolios/${pid}/dividends`, { as: BOB });
    expect(other.status, other.text).toBe(404);
    expect(other.text).not.toContain('SBER');
    const missing = await api('GET', `/api/portfolios/999999999/dividends`);
    expect(missing.status, missing.text).toBe(404);
  });

  it('answers empty lists for a portfolio without deals', async () => {
    const created = await api('POST', '/api/portfolios', { body: { name: 'Empty', currency_code: 'RUB' } });
    const r = await api('GET', `/api/portfolios/${created.body.data.id}/dividends`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual({ expected: [], received_by_year: [] });
  });
});
