/**
 * A create answered 503 is not carried out later. The real gateway, portfolios and screener; the portfolios
 * handler is held up beyond the gateway's deadline by a row lock this test holds on the portfolio (as a paused
 * process or a slow database would), then let go: the late work must not commit, and a retry books once.
 */
import { randomUUID } from 'node:crypto';
import { eventually } from '@invest/platform/testing/index';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'deadline-e2e-secret-0123456789-0123456789';
const ALICE = `alice-${randomUUID()}`;
const RPC_TIMEOUT_MS = 1500;

let stack: FullStack;
let token: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, opts: { body?: unknown; key?: string } = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.key) headers['idempotency-key'] = opts.key;
  const res = await fetch(new URL(path, stack.base), { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwdl',
    tickers: ['SBER'],
    portfolios: { relayPollMs: 100 },
    gateway: { auth: { jwtSecret: SECRET }, rpcTimeoutMs: RPC_TIMEOUT_MS },
  });
  token = await mintDevToken(ALICE, SECRET);
});
afterAll(() => stack?.close());

/** Holds the portfolio's row lock (what every deal write takes first) until `release()`. */
async function holdPortfolio(id: number): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: stack.portfolios.db.url });
  await client.connect();
  await client.query('begin');
  await client.query('select 1 from portfolios where id = $1 for update', [id]);
  return {
    async release() {
      await client.query('commit');
      await client.end();
    },
  };
}

describe('deadlines', () => {
  it('a deal POST answered 503 (outcome unknown) is not booked once the service goes on; a retry books it once', async () => {
    const p = await api('POST', '/api/portfolios', { body: { name: 'Late', currency_code: 'RUB' } });
    expect(p.status).toBe(201);
    const id = p.body.data.id as number;
    const deal = { type: 'buy', assetable: { type: 'share', id: stack.shareIds.SBER }, quantity: 3, price: 250, commission: 0, date: '2024-01-10' };

    const lock = await holdPortfolio(id);
    const started = Date.now();
    const lost = await api('POST', `/api/portfolios/${id}/deals`, { body: deal });
    expect(lost.status).toBe(503);
    expect(lost.body).toMatchObject({ outcome: 'unknown', message: expect.stringMatching(/may or may not/) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(RPC_TIMEOUT_MS);
    // The handler is still waiting for the lock, past its deadline. Let it go on.
    await lock.release();

    // The retry takes the same lock, so it runs after the late handler has finished one way or the other.
    const retry = await api('POST', `/api/portfolios/${id}/deals`, { body: deal });
    expect(retry.status).toBe(201);
    const deals = await api('GET', `/api/portfolios/${id}/deals`);
    expect(deals.body.data.map((d: { id: number }) => d.id)).toEqual([retry.body.data.id]);
    const portfolio = await api('GET', `/api/portfolios/${id}`);
    expect(portfolio.body.data).toMatchObject({ deals_count: 1 });
  });

  it('a keyed repeat waits for its first up to its own deadline, then is a 409 with Retry-After; the first, answered 503, leaves the key to the retry', async () => {
    const p = await api('POST', '/api/portfolios', { body: { name: 'Busy', currency_code: 'RUB' } });
    const id = p.body.data.id as number;
    const deal = { type: 'buy', assetable: { type: 'share', id: stack.shareIds.SBER }, quantity: 2, price: 250, commission: 0, date: '2024-01-10' };
    const key = randomUUID();

    const lock = await holdPortfolio(id);
    try {
      const first = api('POST', `/api/portfolios/${id}/deals`, { body: deal, key });
      // The first claimed its key before its checks; now it waits for the portfolio's lock.
      await eventually(() => stack.portfolios.db.query('select 1 from idempotency_keys where key = $1 and status = 0', [key]), (rows) => rows.length === 1, 'the first claiming its key');
      const busy = await api('POST', `/api/portfolios/${id}/deals`, { body: deal, key });
      expect(busy.status).toBe(409);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(busy.body).toEqual({ message: 'A request with this Idempotency-Key is still being processed; retry it shortly.' });
      expect((await first).body).toMatchObject({ outcome: 'unknown' });
    } finally {
      await lock.release();
    }
    // The late first does not commit (past its deadline) and frees the key: the retry books the deal, once.
    const retry = await api('POST', `/api/portfolios/${id}/deals`, { body: deal, key });
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    const deals = await api('GET', `/api/portfolios/${id}/deals`);
    expect(deals.body.data.map((d: { id: number }) => d.id)).toEqual([retry.body.data.id]);
  });

  it('a read that times out says nothing was done', async () => {
    const p = await api('POST', '/api/portfolios', { body: { name: 'Read', currency_code: 'RUB' } });
    const id = p.body.data.id as number;
    // The statistics read does not wait for row locks; hold the whole table instead.
    const client = new pg.Client({ connectionString: stack.portfolios.db.url });
    await client.connect();
    await client.query('begin');
    await client.query('lock table deals in access exclusive mode');
    try {
      const r = await api('GET', `/api/portfolios/${id}/deals`);
      expect(r.status).toBe(503);
      expect(r.body.outcome).toBe('not_done');
    } finally {
      await client.query('commit');
      await client.end();
    }
  });
});
