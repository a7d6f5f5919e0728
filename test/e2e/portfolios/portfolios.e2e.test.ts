/**
 * Portfolios, deals and watchlists through HTTP: the real gateway, the real portfolios service and the
 * real screener (demo data) over real NATS and Postgres (fresh databases, unique bus prefix). Covers
 * every endpoint, isolation between two users, each 422/404 case, and the events published to
 * JetStream. Statistics: portfolios-statistics.e2e.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { type BusEvent, eventSubject } from '@invest/contracts';
import { type Bus } from '@invest/platform';
import { readPortfolioEvents } from '@invest/portfolios/testing/portfolios-test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'portfolios-e2e-secret-0123456789-0123456789';
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;
/** The service's clock: deals dated after 2025-01-02 (today anywhere on Earth) are in the future. */
const NOW = new Date('2025-01-01T12:00:00Z');

let bus: Bus;
let base: string;
const tokens: Record<string, string> = {};
const asset: Record<string, number> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
interface Answer<T = any> {
  status: number;
  body: T;
  /** The body as sent: numbers with more digits than a double holds are checked here. */
  text: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
async function api<T = any>(method: string, path: string, opts: { as?: string; body?: unknown; raw?: string } = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (opts.as) headers.authorization = `Bearer ${tokens[opts.as]}`;
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(path, base), { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, text };
}

const share = (ticker: string) => ({ type: 'share', id: asset[ticker] });
const buy = (ticker: string, quantity: number, price: number, date: string) => ({ type: 'buy', assetable: share(ticker), quantity, price, commission: 0, date });

let stack: FullStack;
beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwpf',
    tickers: ['SBER', 'GAZP', 'LKOH', 'YNDX'],
    portfolios: { clock: () => NOW, relayPollMs: 100 },
    gateway: { auth: { jwtSecret: SECRET }, readyServices: ['screener', 'portfolios'] },
  });
  ({ base, bus } = stack);
  Object.assign(asset, stack.shareIds);
  tokens.alice = await mintDevToken(ALICE, SECRET);
  tokens.bob = await mintDevToken(BOB, SECRET);
});

afterAll(() => stack?.close());

describe('portfolios', () => {
  it('is ready once the portfolios service answers its health ping', async () => {
    const ready = await api('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toMatchObject({ portfolios: 'ok' });
  });

  it('requires a bearer token on every route', async () => {
    for (const [method, path] of [
      ['GET', '/api/portfolios'],
      ['POST', '/api/portfolios'],
      ['GET', '/api/portfolios/1/statistics'],
      ['DELETE', '/api/portfolios/1/deals/1'],
      ['GET', '/api/watchlists'],
      ['POST', '/api/watchlists/1/items'],
    ]) {
      expect((await api(method!, path!)).status, `${method} ${path}`).toBe(401);
    }
  });

  it('creates, lists, reads, renames and deletes a portfolio', async () => {
    const created = await api('POST', '/api/portfolios', { as: 'alice', body: { name: '  Pension  ', currency_code: 'usd' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Pension', currency_code: 'USD', positions_count: 0, deals_count: 0 });
    const id = created.body.data.id as number;

    const list = await api('GET', '/api/portfolios', { as: 'alice' });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: number }) => p.id)).toContain(id);

    expect((await api('GET', `/api/portfolios/${id}`, { as: 'alice' })).body.data.name).toBe('Pension');
    const renamed = await api('PATCH', `/api/portfolios/${id}`, { as: 'alice', body: { name: 'Retirement', currency_code: 'EUR' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id, name: 'Retirement', currency_code: 'EUR' });

    const deleted = await api('DELETE', `/api/portfolios/${id}`, { as: 'alice' });
    expect(deleted.status).toBe(204);
    expect((await api('GET', `/api/portfolios/${id}`, { as: 'alice' })).status).toBe(404);
    expect((await api('DELETE', `/api/portfolios/${id}`, { as: 'alice' })).status).toBe(404);
  });

  it('rejects bad portfolio input with 422 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'X', currency_code: 'XYZ' }, 'currency_code'],
      [{ name: 'X' }, 'currency_code'],
      [{ name: '', currency_code: 'RUB' }, 'name'],
      [{ name: 'x'.repeat(101), currency_code: 'RUB' }, 'name'],
      // JSON that is not an object is a problem of the whole body.
      [[1, 2], 'body'],
      // Postgres text cannot hold NUL, nor jsonb a lone surrogate: a 422, not a 500.
      [{ name: 'a\u0000b', currency_code: 'RUB' }, 'name'],
      [{ name: '\ud800', currency_code: 'RUB' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const r = await api('POST', '/api/portfolios', { as: 'alice', body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body)).toContain(field);
    }
    const p = await api('POST', '/api/portfolios', { as: 'alice', body: { name: 'Keep', currency_code: 'RUB' } });
    const patch = await api('PATCH', `/api/portfolios/${p.body.data.id}`, { as: 'alice', body: { currency_code: 'DOGE' } });
    expect(patch.status).toBe(422);
    expect(patch.body.errors).toHaveProperty('currency_code');
    const nul = await api('PATCH', `/api/portfolios/${p.body.data.id}`, { as: 'alice', body: { name: 'a\u0000' } });
    expect(nul.status).toBe(422);
    expect(nul.body.errors).toHaveProperty('name');
    expect((await api('PATCH', `/api/portfolios/${p.body.data.id}`, { as: 'alice', body: {} })).status).toBe(422);
    const bad = await api('POST', '/api/portfolios', { as: 'alice', raw: '{"name": ' });
    expect(bad.status).toBe(400);
  });

  it("keeps users apart: another user's portfolio is not found, never forbidden", async () => {
    const mine = await api('POST', '/api/portfolios', { as: 'alice', body: { name: 'Alice only', currency_code: 'RUB' } });
    const id = mine.body.data.id as number;
    const dealed = await api('POST', `/api/portfolios/${id}/deals`, { as: 'alice', body: buy('SBER', 5, 250, '2024-01-10') });
    expect(dealed.status).toBe(201);
    const dealId = dealed.body.data.id as number;

    const bobList = await api('GET', '/api/portfolios', { as: 'bob' });
    expect(bobList.status).toBe(200);
    expect(bobList.body.data).toEqual([]);
    const attempts: [string, string, unknown?][] = [
      ['GET', `/api/portfolios/${id}`],
      ['PATCH', `/api/portfolios/${id}`, { name: 'Mine now' }],
      ['DELETE', `/api/portfolios/${id}`],
      ['GET', `/api/portfolios/${id}/deals`],
      ['POST', `/api/portfolios/${id}/deals`, buy('SBER', 1, 250, '2024-01-10')],
      ['DELETE', `/api/portfolios/${id}/deals/${dealId}`],
      ['GET', `/api/portfolios/${id}/statistics`],
    ];
    for (const [method, path, body] of attempts) {
      const r = await api(method, path, { as: 'bob', ...(body ? { body } : {}) });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toEqual({ message: 'Portfolio not found.' });
    }
    // Nothing of Alice's changed.
    const still = await api('GET', `/api/portfolios/${id}`, { as: 'alice' });
    expect(still.body.data).toMatchObject({ name: 'Alice only', deals_count: 1, positions_count: 1 });
  });

  it('answers 404 for ids that do not exist or are not ids', async () => {
    for (const path of ['/api/portfolios/99999999', '/api/portfolios/abc', '/api/portfolios/-1', '/api/portfolios/1.5', '/api/portfolios/99999999/statistics']) {
      expect((await api('GET', path, { as: 'alice' })).status, path).toBe(404);
    }
    // The owner's own id with white space around its digits is not an id either (it was trimmed and found).
    const own = (await api('POST', '/api/portfolios', { as: 'alice', body: { name: 'Spaced', currency_code: 'RUB' } })).body.data.id as number;
    expect((await api('GET', `/api/portfolios/${own}`, { as: 'alice' })).status).toBe(200);
    for (const path of [`/api/portfolios/%20${own}`, `/api/portfolios/${own}%20`, `/api/portfolios/%0A${own}`, `/api/portfolios/${own}%09/deals`, `/api/watchlists/%20${own}/items`]) {
      const method = path.endsWith('/items') ? 'POST' : 'GET';
      expect((await api(method, path, { as: 'alice', ...(method === 'POST' ? { body: { assetable: share('SBER') } } : {}) })).status, path).toBe(404);
    }
  });
});

describe('deals', () => {
  let pid: number;
  beforeAll(async () => {
    pid = (await api('POST', '/api/portfolios', { as: 'alice', body: { name: 'Deals', currency_code: 'RUB' } })).body.data.id;
  });

  it('records deals of every type and lists them newest first with Laravel paging', async () => {
    const bodies = [
      { type: 'buy', assetable: share('SBER'), quantity: 10, price: 250, commission: 1.5, date: '2024-01-10' },
      { type: 'sell', assetable: share('SBER'), quantity: '4', price: '275.25', date: '2024-02-01' },
      { type: 'dividend', assetable: share('SBER'), quantity: 6, price: 33.3, date: '2024-07-20' },
      { type: 'tax', assetable: share('SBER'), quantity: 1, price: 26, date: '2024-07-20' },
      { type: 'coupon', assetable: share('GAZP'), quantity: 1, price: 10, date: '2024-03-01' },
      { type: 'fee', assetable: share('GAZP'), quantity: 1, price: 99, date: '2025-01-02' },
    ];
    for (const body of bodies) {
      const r = await api('POST', `/api/portfolios/${pid}/deals`, { as: 'alice', body });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.data).toMatchObject({ portfolio_id: pid, type: body.type, date: body.date, quantity: Number(body.quantity), price: Number(body.price) });
    }
    const sell = (await api('GET', `/api/portfolios/${pid}/deals?per_page=100`, { as: 'alice' })).body.data.find((d: { type: string }) => d.type === 'sell');
    expect(sell).toMatchObject({ quantity: 4, price: 275.25, amount: 1101, commission: 0, asset: { ticker: 'SBER' } });

    const page1 = await api('GET', `/api/portfolios/${pid}/deals?per_page=4`, { as: 'alice' });
    expect(page1.status).toBe(200);
    expect(page1.body.meta).toEqual({ current_page: 1, per_page: 4, total: 6, last_page: 2, from: 1, to: 4 });
    expect(page1.body.data.map((d: { date: string }) => d.date)).toEqual(['2025-01-02', '2024-07-20', '2024-07-20', '2024-03-01']);
    expect(new URL(page1.body.links.next, base).searchParams.get('page')).toBe('2');
    const page2 = await api('GET', page1.body.links.next, { as: 'alice' });
    expect(page2.body.data.map((d: { date: string }) => d.date)).toEqual(['2024-02-01', '2024-01-10']);
    expect(page2.body.links.next).toBeNull();
    expect((await api('GET', `/api/portfolios/${pid}/deals?per_page=500`, { as: 'alice' })).status).toBe(422);
  });

  it('answers money and quantities with exactly the digits it was given (no binary noise), as JSON numbers', async () => {
    const p = (await api('POST', '/api/portfolios', { as: 'alice', body: { name: 'Exact', currency_code: 'RUB' } })).body.data.id;
    const post = (json: string) => api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', raw: json });
    const lkoh = `{"type":"share","id":${asset.LKOH}}`;
    // A double would answer amount 42290747.88000001.
    const noisy = await post(`{"type":"buy","assetable":${lkoh},"quantity":1,"price":42290747.88,"commission":36716396.59,"date":"2024-05-05"}`);
    expect(noisy.status, noisy.text).toBe(201);
    expect(noisy.text).toContain('"quantity":1,"price":42290747.88,"commission":36716396.59,"amount":42290747.88,');
    // More digits than a double holds, in the body and in the answer; amount = quantity x price rounded to 8 places.
    const long = await post(`{"type":"buy","assetable":${lkoh},"quantity":123456789.12345678,"price":999999999999999.99999999,"date":"2024-05-05"}`);
    expect(long.status, long.text).toBe(201);
    expect(long.text).toContain('"quantity":123456789.12345678,"price":999999999999999.99999999,"commission":0,"amount":123456789123456779999998.76543211,');
    const big = await post(`{"type":"buy","assetable":${lkoh},"quantity":"1","price":1e15,"date":"2024-05-05"}`);
    expect(big.text).toContain('"quantity":1,"price":1000000000000000,"commission":0,"amount":1000000000000000,');
    // A decimal string in exponent notation is read as the number it writes, as for a custom asset's price.
    const exp = await post(`{"type":"buy","assetable":${lkoh},"quantity":"1e3","price":"2.5E-3","date":"2024-05-05"}`);
    expect(exp.status, exp.text).toBe(201);
    expect(exp.text).toContain('"quantity":1000,"price":0.0025,"commission":0,"amount":2.5,');
    // A literal beyond a double (Infinity to JSON.parse) is refused by its value, not taken as some other number.
    const huge = await post(`{"type":"buy","assetable":${lkoh},"quantity":1e400,"price":1,"date":"2024-05-05"}`);
    expect(huge.status).toBe(422);
    expect(huge.body.errors.quantity[0]).toMatch(/may not be greater than/);
    // The list answers the same digits.
    const listed = await api('GET', `/api/portfolios/${p}/deals`, { as: 'alice' });
    expect(listed.text).toContain('"price":999999999999999.99999999');
    expect(listed.text).toContain('"commission":36716396.59,"amount":42290747.88,');
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['an unknown asset', { assetable: { type: 'share', id: 987654321 } }, 'assetable.id'],
    ['an unknown asset type', { assetable: { type: 'stock', id: 1 } }, 'assetable.type'],
    ['a boolean asset id', { assetable: { type: 'share', id: true } }, 'assetable.id'],
    ['an array asset id', { assetable: { type: 'share', id: [1] } }, 'assetable.id'],
    ['a hexadecimal asset id', { assetable: { type: 'share', id: '0x1' } }, 'assetable.id'],
    ['a negative quantity', { quantity: -5 }, 'quantity'],
    ['a zero quantity', { quantity: 0 }, 'quantity'],
    ['a non-numeric quantity', { quantity: 'ten' }, 'quantity'],
    ['a negative price', { price: -1 }, 'price'],
    ['a negative commission', { commission: -0.5 }, 'commission'],
    ['a quantity of 5e-324 (more than 8 decimal places)', { quantity: 5e-324 }, 'quantity'],
    ['a price with 9 decimal places', { price: '0.123456789' }, 'price'],
    ['a price above 1e15', { price: 1000000000000000.1 }, 'price'],
    ['a commission of 1e16 as a string', { commission: '1e16' }, 'commission'],
    ['a date in the future', { date: '2025-01-03' }, 'date'],
    ['a date far in the future', { date: '2099-12-31' }, 'date'],
    ['a date that does not exist', { date: '2024-02-30' }, 'date'],
    ['a date in another format', { date: '10.01.2024' }, 'date'],
    ['an unknown deal type', { type: 'split' }, 'type'],
  ];
  for (const [what, change, field] of invalid) {
    it(`rejects ${what} with 422 on ${field}`, async () => {
      const r = await api('POST', `/api/portfolios/${pid}/deals`, { as: 'alice', body: { ...buy('LKOH', 1, 100, '2024-05-05'), ...change } });
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(Object.keys(r.body.errors)).toContain(field);
    });
  }

  it('rejects selling more than is held at the date (422) and accepts selling exactly what is held', async () => {
    const p = (await api('POST', '/api/portfolios', { as: 'alice', body: { name: 'Oversell', currency_code: 'RUB' } })).body.data.id;
    await api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', body: buy('YNDX', 10, 3000, '2024-03-01') });
    const tooMany = await api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', body: { ...buy('YNDX', 11, 3100, '2024-04-01'), type: 'sell' } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.quantity[0]).toMatch(/only 10 held/);
    // Before the buy, nothing was held.
    const early = await api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', body: { ...buy('YNDX', 1, 2900, '2024-02-01'), type: 'sell' } });
    expect(early.status).toBe(422);
    // Never held at all.
    expect((await api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', body: { ...buy('GAZP', 1, 150, '2024-04-01'), type: 'sell' } })).status).toBe(422);
    const all = await api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', body: { ...buy('YNDX', 10, 3100, '2024-04-01'), type: 'sell' } });
    expect(all.status).toBe(201);
    expect((await api('GET', `/api/portfolios/${p}`, { as: 'alice' })).body.data).toMatchObject({ positions_count: 0, deals_count: 2 });
  });

  it('rejects deleting a buy that a later sell depends on (422), then deletes in a valid order (204)', async () => {
    const p = (await api('POST', '/api/portfolios', { as: 'alice', body: { name: 'Delete order', currency_code: 'RUB' } })).body.data.id;
    const b1 = (await api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', body: buy('LKOH', 5, 7000, '2024-01-15') })).body.data.id;
    const b2 = (await api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', body: buy('LKOH', 5, 7100, '2024-02-15') })).body.data.id;
    const s = (await api('POST', `/api/portfolios/${p}/deals`, { as: 'alice', body: { ...buy('LKOH', 8, 7200, '2024-03-15'), type: 'sell' } })).body.data.id;
    const refused = await api('DELETE', `/api/portfolios/${p}/deals/${b1}`, { as: 'alice' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toHaveProperty('deal');
    expect((await api('GET', `/api/portfolios/${p}/deals`, { as: 'alice' })).body.meta.total).toBe(3);
    expect((await api('DELETE', `/api/portfolios/${p}/deals/${s}`, { as: 'alice' })).status).toBe(204);
    expect((await api('DELETE', `/api/portfolios/${p}/deals/${b1}`, { as: 'alice' })).status).toBe(204);
    expect((await api('DELETE', `/api/portfolios/${p}/deals/${b1}`, { as: 'alice' })).status).toBe(404);
    expect((await api('DELETE', `/api/portfolios/${p}/deals/abc`, { as: 'alice' })).status).toBe(404);
    // A deal of another portfolio is not found through this one.
    expect((await api('DELETE', `/api/portfolios/${pid}/deals/${b2}`, { as: 'alice' })).status).toBe(404);
    expect((await api('GET', `/api/portfolios/${p}/deals`, { as: 'alice' })).body.data.map((d: { id: number }) => d.id)).toEqual([b2]);
  });
});

describe('watchlists', () => {
  it('lists watchlists oldest first in numeric id order, past nine of them', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 11; i++) ids.push((await api('POST', '/api/watchlists', { as: 'bob', body: { name: `W${i}` } })).body.data.id as number);
    const listed = await api('GET', '/api/watchlists', { as: 'bob' });
    expect(listed.body.data.map((w: { id: number }) => w.id)).toEqual(ids);
    for (const id of ids) expect((await api('DELETE', `/api/watchlists/${id}`, { as: 'bob' })).status).toBe(204);
  });

  it('creates a watchlist, adds and removes items, lists it, deletes it', async () => {
    const created = await api('POST', '/api/watchlists', { as: 'alice', body: { name: 'Energy' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Energy', items: [] });
    const wid = created.body.data.id as number;

    const gazp = await api('POST', `/api/watchlists/${wid}/items`, { as: 'alice', body: { assetable: share('GAZP') } });
    expect(gazp.status).toBe(201);
    expect(gazp.body.data).toMatchObject({ watchlist_id: wid, assetable: share('GAZP'), asset: { ticker: 'GAZP' } });
    const lkoh = await api('POST', `/api/watchlists/${wid}/items`, { as: 'alice', body: { assetable: share('LKOH') } });
    expect(lkoh.status).toBe(201);
    const dup = await api('POST', `/api/watchlists/${wid}/items`, { as: 'alice', body: { assetable: share('GAZP') } });
    expect(dup.status).toBe(422);
    const unknown = await api('POST', `/api/watchlists/${wid}/items`, { as: 'alice', body: { assetable: { type: 'share', id: 987654321 } } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toHaveProperty(['assetable.id']);
    expect((await api('POST', `/api/watchlists/${wid}/items`, { as: 'alice', body: {} })).status).toBe(422);

    const list = await api('GET', '/api/watchlists', { as: 'alice' });
    const mine = list.body.data.find((w: { id: number }) => w.id === wid);
    expect(mine.items.map((i: { asset: { ticker: string } }) => i.asset.ticker)).toEqual(['GAZP', 'LKOH']);

    expect((await api('DELETE', `/api/watchlists/${wid}/items/${gazp.body.data.id}`, { as: 'alice' })).status).toBe(204);
    expect((await api('DELETE', `/api/watchlists/${wid}/items/${gazp.body.data.id}`, { as: 'alice' })).status).toBe(404);
    const after = (await api('GET', '/api/watchlists', { as: 'alice' })).body.data.find((w: { id: number }) => w.id === wid);
    expect(after.items.map((i: { asset: { ticker: string } }) => i.asset.ticker)).toEqual(['LKOH']);

    expect((await api('DELETE', `/api/watchlists/${wid}`, { as: 'alice' })).status).toBe(204);
    expect((await api('GET', '/api/watchlists', { as: 'alice' })).body.data.find((w: { id: number }) => w.id === wid)).toBeUndefined();
    expect((await api('DELETE', `/api/watchlists/${wid}`, { as: 'alice' })).status).toBe(404);
  });

  it("keeps users apart: another user's watchlist and items are not found", async () => {
    const wid = (await api('POST', '/api/watchlists', { as: 'alice', body: { name: 'Private' } })).body.data.id;
    const item = (await api('POST', `/api/watchlists/${wid}/items`, { as: 'alice', body: { assetable: share('SBER') } })).body.data.id;
    expect((await api('GET', '/api/watchlists', { as: 'bob' })).body.data).toEqual([]);
    expect((await api('POST', `/api/watchlists/${wid}/items`, { as: 'bob', body: { assetable: share('GAZP') } })).status).toBe(404);
    expect((await api('DELETE', `/api/watchlists/${wid}/items/${item}`, { as: 'bob' })).status).toBe(404);
    expect((await api('DELETE', `/api/watchlists/${wid}`, { as: 'bob' })).status).toBe(404);
    const still = (await api('GET', '/api/watchlists', { as: 'alice' })).body.data.find((w: { id: number }) => w.id === wid);
    expect(still.items).toHaveLength(1);
  });

  it("never lets a user reference another user's custom asset (deal or watchlist item: 422, nothing of it shown)", async () => {
    const made = await api('POST', '/api/custom-assets', { as: 'alice', body: { name: 'Alice flat', currency: 'RUB', price: 12345678 } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const ref = { type: 'custom_asset', id: made.body.data.id as number };
    // The owner may use it.
    const own = (await api('POST', '/api/watchlists', { as: 'alice', body: { name: 'Own flat' } })).body.data.id;
    expect((await api('POST', `/api/watchlists/${own}/items`, { as: 'alice', body: { assetable: ref } })).status).toBe(201);

    // A user of its own, so the events test (which follows Bob) is not disturbed.
    tokens.carol = await mintDevToken(`carol-${randomUUID()}`, SECRET);
    const wid = (await api('POST', '/api/watchlists', { as: 'carol', body: { name: 'Snoop' } })).body.data.id;
    const item = await api('POST', `/api/watchlists/${wid}/items`, { as: 'carol', body: { assetable: ref } });
    expect(item.status).toBe(422);
    expect(item.body.errors).toHaveProperty(['assetable.id']);
    expect(JSON.stringify(item.body)).not.toContain('Alice flat');
    const pid = (await api('POST', '/api/portfolios', { as: 'carol', body: { name: 'Snoop', currency_code: 'RUB' } })).body.data.id;
    const deal = await api('POST', `/api/portfolios/${pid}/deals`, { as: 'carol', body: { type: 'buy', assetable: ref, quantity: 1, price: 1, date: '2024-01-10' } });
    expect(deal.status).toBe(422);
    expect(JSON.stringify(deal.body)).not.toContain('Alice flat');
    expect((await api('GET', `/api/portfolios/${pid}`, { as: 'carol' })).body.data.deals_count).toBe(0);
  });

  it('rejects a watchlist without a name (422)', async () => {
    const r = await api('POST', '/api/watchlists', { as: 'alice', body: { name: '   ' } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toHaveProperty('name');
    for (const name of ['a\u0000b', 'x\udc00']) {
      const bad = await api('POST', '/api/watchlists', { as: 'alice', body: { name } });
      expect(bad.status, JSON.stringify(name)).toBe(422);
      expect(bad.body.errors).toHaveProperty('name');
    }
  });
});

describe('a user with more watchlists than one NATS message holds', () => {
  it('lists every watchlist and item, in order, though together they are over the server\'s max_payload', async () => {
    const user = `dave-${randomUUID()}`;
    tokens.dave = await mintDevToken(user, SECRET);
    // 500 assets with long names in the service's catalog (as the screener describes them), 7 watchlists of all 500
    // (the items written as the API writes them; 3,500 adds over HTTP would take minutes): ~1.6 MB of JSON.
    const name = 'Очень длинное название инструмента для проверки размера ответа '.repeat(2);
    await stack.portfolios.db.query(
      `insert into assets (asset_type, asset_id, ticker, name, currency, current_rate, price_change_24h, catalog_checked_at)
       select 'share', 990000 + g, 'T' || g, $1 || g, 'RUB', 100 + g, 1.5, now() from generate_series(1, 500) g on conflict do nothing`,
      [name],
    );
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push((await api('POST', '/api/watchlists', { as: 'dave', body: { name: `Big ${i}` } })).body.data.id);
    await stack.portfolios.db.query(
      `insert into watchlist_items (watchlist_id, asset_type, asset_id)
       select w, 'share', 990000 + g from unnest($1::bigint[]) w, generate_series(1, 500) g order by w, g`,
      [ids],
    );
    // One more, empty, and one of one item: pages are whole watchlists.
    ids.push((await api('POST', '/api/watchlists', { as: 'dave', body: { name: 'Empty' } })).body.data.id);
    ids.push((await api('POST', '/api/watchlists', { as: 'dave', body: { name: 'One' } })).body.data.id);
    expect((await api('POST', `/api/watchlists/${ids[8]}/items`, { as: 'dave', body: { assetable: share('SBER') } })).status).toBe(201);

    const list = await api('GET', '/api/watchlists', { as: 'dave' });
    expect(list.status).toBe(200);
    const maxPayload = (stack.bus.nc as unknown as { info?: { max_payload?: number } }).info?.max_payload ?? 1024 * 1024;
    expect(Buffer.byteLength(list.text)).toBeGreaterThan(maxPayload);
    const got = list.body.data as { id: number; name: string; items: { assetable: { id: number }; asset: { name: string } | null }[] }[];
    expect(got.map((w) => w.id)).toEqual(ids);
    expect(got.map((w) => w.items.length)).toEqual([500, 500, 500, 500, 500, 500, 500, 0, 1]);
    for (const w of got.slice(0, 7)) {
      expect(w.items.map((i) => i.assetable.id)).toEqual(Array.from({ length: 500 }, (_, g) => 990001 + g));
      expect(w.items[499]!.asset?.name).toBe(`${name}500`);
    }
    expect(got[8]!.items.map((i) => i.assetable)).toEqual([share('SBER')]);
  });
});

describe('events on PORTFOLIOS_EVENTS', () => {
  it('publishes creation, position changes, deletion and watchlist membership, each once, in order', async () => {
    const p = (await api('POST', '/api/portfolios', { as: 'bob', body: { name: 'Events', currency_code: 'RUB' } })).body.data.id as number;
    await api('POST', `/api/portfolios/${p}/deals`, { as: 'bob', body: buy('SBER', 3, 250, '2024-01-10') });
    // A second buy of a held asset and a dividend do not change membership.
    await api('POST', `/api/portfolios/${p}/deals`, { as: 'bob', body: buy('SBER', 2, 260, '2024-01-11') });
    await api('POST', `/api/portfolios/${p}/deals`, { as: 'bob', body: { ...buy('SBER', 5, 1, '2024-06-01'), type: 'dividend' } });
    const gazpBuy = (await api('POST', `/api/portfolios/${p}/deals`, { as: 'bob', body: buy('GAZP', 10, 150, '2024-02-01') })).body.data.id;
    await api('POST', `/api/portfolios/${p}/deals`, { as: 'bob', body: { ...buy('SBER', 5, 270, '2024-03-01'), type: 'sell' } });
    await api('DELETE', `/api/portfolios/${p}/deals/${gazpBuy}`, { as: 'bob' });
    const w = (await api('POST', '/api/watchlists', { as: 'bob', body: { name: 'Events' } })).body.data.id as number;
    const i1 = (await api('POST', `/api/watchlists/${w}/items`, { as: 'bob', body: { assetable: share('LKOH') } })).body.data.id as number;
    const i2 = (await api('POST', `/api/watchlists/${w}/items`, { as: 'bob', body: { assetable: share('YNDX') } })).body.data.id as number;
    await api('DELETE', `/api/watchlists/${w}/items/${i1}`, { as: 'bob' });
    await api('DELETE', `/api/watchlists/${w}`, { as: 'bob' });
    expect((await api('DELETE', `/api/portfolios/${p}`, { as: 'bob' })).status).toBe(204);

    const expected: [string, number, Record<string, unknown>][] = [
      ['PortfolioCreated', p, { portfolioId: p, userId: BOB, name: 'Events', currencyCode: 'RUB' }],
      ['PositionOpened', p, { portfolioId: p, userId: BOB, asset: share('SBER') }],
      ['PositionOpened', p, { portfolioId: p, userId: BOB, asset: share('GAZP') }],
      ['PositionClosed', p, { portfolioId: p, userId: BOB, asset: share('SBER') }],
      ['PositionClosed', p, { portfolioId: p, userId: BOB, asset: share('GAZP') }],
      ['WatchlistItemAdded', w, { watchlistId: w, itemId: i1, userId: BOB, asset: share('LKOH') }],
      ['WatchlistItemAdded', w, { watchlistId: w, itemId: i2, userId: BOB, asset: share('YNDX') }],
      ['WatchlistItemRemoved', w, { watchlistId: w, itemId: i1, userId: BOB, asset: share('LKOH') }],
      ['WatchlistItemRemoved', w, { watchlistId: w, itemId: i2, userId: BOB, asset: share('YNDX') }],
      ['WatchlistDeleted', w, { watchlistId: w, userId: BOB }],
      ['PortfolioDeleted', p, { portfolioId: p, userId: BOB }],
    ];
    // This test's portfolio and watchlist only (other tests delete BOB's watchlists too: WatchlistDeleted).
    const mine = (events: { subject: string; event: BusEvent }[]) =>
      events.filter((e) => (e.event.data as { userId?: string }).userId === BOB && [`portfolio-${p}`, `watchlist-${w}`].includes(e.event.streamName));
    // The relay publishes in the order events were recorded: once a portfolio created after all of them (another
    // user's) is on the stream, so is every event of this test, and any duplicate of one.
    tokens.marker = await mintDevToken(`marker-${randomUUID()}`, SECRET);
    const marker = (await api('POST', '/api/portfolios', { as: 'marker', body: { name: 'Marker', currency_code: 'RUB' } })).body.data.id as number;
    await expect
      .poll(async () => (await readPortfolioEvents(bus)).some((e) => e.event.type === 'PortfolioCreated' && e.event.streamName === `portfolio-${marker}`), { timeout: 15_000, interval: 100 })
      .toBe(true);
    const got = mine(await readPortfolioEvents(bus));
    expect(got.map((e) => e.subject)).toEqual(expected.map(([type, id]) => eventSubject('portfolios', type, id)));
    expected.forEach(([type, , data], n) => {
      expect(got[n]!.event.type).toBe(type);
      expect(got[n]!.event.data).toEqual({ version: 1, ...data });
    });
    expect(new Set(got.map((e) => e.event.id)).size).toBe(got.length);
  });
});
