/**
 * Idempotency-Key and per-user limits through HTTP: the real gateway, portfolios service and screener (demo
 * data) over real NATS and Postgres (fresh databases, unique bus prefix), with small limits. A keyed repeat
 * must answer the first response and leave one row and one published event.
 */
import { randomUUID } from 'node:crypto';
import type { BusEvent, RatesUpdatedV1 } from '@invest/contracts';
import { type Bus, streamNameOf } from '@invest/platform';
import { type PortfoliosApp } from '@invest/portfolios/portfolios.app';
import { readPortfolioEvents } from '@invest/portfolios/testing/portfolios-test-kit';
import { type ScreenerApp } from '@invest/screener/screener.app';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'idempotency-e2e-secret-0123456789-0123456789';
const NOW = new Date('2025-01-01T12:00:00Z');
const LIMITS = { portfoliosPerUser: 2, watchlistsPerUser: 2, itemsPerWatchlist: 2, dealsPerPortfolio: 3 };
const CUSTOM_ASSETS_LIMIT = 2;

let screener: ScreenerApp;
let portfolios: PortfoliosApp;
let bus: Bus;
let base: string;
const asset: Record<string, number> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, opts: { user: string; body?: unknown; key?: string }): Promise<{ status: number; body: any; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${await mintDevToken(opts.user, SECRET)}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.key !== undefined) headers['idempotency-key'] = opts.key;
  const res = await fetch(new URL(path, base), { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

const newUser = (name: string) => `${name}-${randomUUID()}`;
const share = (ticker: string) => ({ type: 'share', id: asset[ticker] });
const buy = (ticker: string, quantity: number, date = '2024-01-10') => ({ type: 'buy', assetable: share(ticker), quantity, price: 100, commission: 0, date });
/** A relay publishes within a poll (100 ms here) of a commit; the bound is for a loaded machine. */
const POLL = { timeout: 15_000, interval: 100 };

async function newPortfolio(user: string): Promise<number> {
  const r = await api('POST', '/api/portfolios', { user, body: { name: 'P', currency_code: 'RUB' } });
  expect(r.status).toBe(201);
  return r.body.data.id as number;
}

/** RatesUpdated entries of one custom asset on MARKET_EVENTS. */
async function ratesOf(assetId: number) {
  const stream = streamNameOf(bus, 'market');
  const { state } = await bus.jsm.streams.info(stream);
  const out = [];
  for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
    const m = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m) out.push(...m.json<BusEvent<RatesUpdatedV1>>().data.rates.filter((r) => r.assetType === 'custom_asset' && r.assetId === assetId));
  }
  return out;
}

const positionEvents = async (portfolioId: number) =>
  (await readPortfolioEvents(bus)).filter((e) => e.event.type === 'PositionOpened' && (e.event.data as { portfolioId: number }).portfolioId === portfolioId);

/**
 * Waits until portfolios' relay has published everything recorded so far: it publishes in the order events were
 * recorded, so once a portfolio created now (another user's) is on PORTFOLIOS_EVENTS, so is every earlier event.
 */
async function portfolioEventsRelayed(): Promise<void> {
  const marker = await newPortfolio(newUser('marker'));
  await expect
    .poll(async () => (await readPortfolioEvents(bus)).some((e) => e.event.type === 'PortfolioCreated' && (e.event.data as { portfolioId: number }).portfolioId === marker), POLL)
    .toBe(true);
}

/** The same for the screener's relay and MARKET_EVENTS, with a custom asset created now (another user's) and its RatesUpdated. */
async function marketEventsRelayed(): Promise<void> {
  const marker = await api('POST', '/api/custom-assets', { user: newUser('marker'), body: { name: 'Marker', currency: 'RUB', price: 1 } });
  expect(marker.status).toBe(201);
  await expect.poll(async () => (await ratesOf(marker.body.data.id as number)).length, POLL).toBe(1);
}

let stack: FullStack;
beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwidem',
    tickers: ['SBER', 'GAZP', 'LKOH'],
    screener: { relayPollMs: 100, customAssetsMaxPerUser: CUSTOM_ASSETS_LIMIT },
    portfolios: { clock: () => NOW, relayPollMs: 100, limits: LIMITS },
    gateway: { auth: { jwtSecret: SECRET }, readyServices: [] },
  });
  ({ screener, portfolios, base, bus } = stack);
  Object.assign(asset, stack.shareIds);
});

afterAll(() => stack?.close());

describe('Idempotency-Key', () => {
  it('a repeated deal with the key answers the first response: one row, one event on JetStream', async () => {
    const user = newUser('deal');
    const pid = await newPortfolio(user);
    const key = randomUUID();
    const first = await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 5), key });
    expect(first.status).toBe(201);
    // Key order of the body does not matter: the fingerprint is canonical JSON of the request.
    const { assetable, ...rest } = buy('SBER', 5);
    const again = await api('POST', `/api/portfolios/${pid}/deals`, { user, body: { ...rest, assetable }, key });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);

    const rows = await portfolios.db.query<{ n: number }>('select count(*)::int as n from deals where portfolio_id = $1', [pid]);
    expect(rows[0]!.n).toBe(1);
    await portfolioEventsRelayed();
    expect(await positionEvents(pid)).toHaveLength(1);
    const list = await api('GET', `/api/portfolios/${pid}/deals`, { user });
    expect(list.body.data.map((d: { id: number }) => d.id)).toEqual([first.body.data.id]);
  });

  it('a keyed repeat answers the first response before any check: a deal after its portfolio, an item after its watchlist was deleted', async () => {
    const user = newUser('replay');
    const pid = await newPortfolio(user);
    const key = randomUUID();
    const deal = await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 2), key });
    expect(deal.status).toBe(201);
    expect((await api('DELETE', `/api/portfolios/${pid}`, { user })).status).toBe(204);
    const again = await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 2), key });
    expect([again.status, again.text]).toEqual([201, deal.text]);
    // The same key with another request is still refused, and without the key the check answers.
    expect((await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 3), key })).status).toBe(422);
    expect((await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 2) })).status).toBe(404);

    const list = await api('POST', '/api/watchlists', { user, body: { name: 'W' } });
    const item = await api('POST', `/api/watchlists/${list.body.data.id}/items`, { user, body: { assetable: share('SBER') }, key });
    expect(item.status).toBe(201);
    expect((await api('DELETE', `/api/watchlists/${list.body.data.id}`, { user })).status).toBe(204);
    const itemAgain = await api('POST', `/api/watchlists/${list.body.data.id}/items`, { user, body: { assetable: share('SBER') }, key });
    expect([itemAgain.status, itemAgain.text]).toEqual([201, item.text]);
  });

  it('the same key with a different body is a 422 naming Idempotency-Key, and creates nothing', async () => {
    const user = newUser('diff');
    const pid = await newPortfolio(user);
    const key = 'order-42';
    expect((await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 5), key })).status).toBe(201);
    const other = await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 6), key });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      message: 'This Idempotency-Key was already used with a different request.',
      errors: { 'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'] },
    });
    // The same key on another portfolio is another request too.
    const pid2 = await newPortfolio(user);
    expect((await api('POST', `/api/portfolios/${pid2}/deals`, { user, body: buy('SBER', 5), key })).status).toBe(422);
    const n = await portfolios.db.query<{ n: number }>('select count(*)::int as n from deals where portfolio_id = any($1::bigint[])', [[pid, pid2]]);
    expect(n[0]!.n).toBe(1);
  });

  it('a repeated custom asset with the key answers the first response: one row, one RatesUpdated', async () => {
    const user = newUser('ca');
    const key = randomUUID();
    const body = { name: 'Idempotent flat', currency: 'RUB', price: 1000000 };
    const first = await api('POST', '/api/custom-assets', { user, body, key });
    expect(first.status).toBe(201);
    const again = await api('POST', '/api/custom-assets', { user, body, key });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    const id = first.body.data.id as number;

    const owned = await screener.db.query<{ n: number }>('select count(*)::int as n from custom_assets where owner_user_id = $1', [user]);
    expect(owned[0]!.n).toBe(1);
    await marketEventsRelayed();
    expect(await ratesOf(id)).toHaveLength(1);

    const changed = await api('POST', '/api/custom-assets', { user, body: { ...body, price: 2 }, key });
    expect(changed.status).toBe(422);
    expect(changed.body.errors).toEqual({ 'Idempotency-Key': ['This Idempotency-Key was already used with a different request.'] });
    expect((await api('GET', '/api/custom-assets', { user })).body.data).toHaveLength(1);
  });

  it('portfolios, watchlists and items: a keyed repeat answers the same id; without a key every POST creates', async () => {
    const user = newUser('kinds');
    const p1 = await api('POST', '/api/portfolios', { user, body: { name: 'A', currency_code: 'RUB' }, key: 'p' });
    const p2 = await api('POST', '/api/portfolios', { user, body: { name: 'A', currency_code: 'RUB' }, key: 'p' });
    expect([p1.status, p2.status]).toEqual([201, 201]);
    expect(p2.body).toEqual(p1.body);
    const w1 = await api('POST', '/api/watchlists', { user, body: { name: 'W' }, key: 'w' });
    const w2 = await api('POST', '/api/watchlists', { user, body: { name: 'W' }, key: 'w' });
    expect([w1.status, w2.status]).toEqual([201, 201]);
    expect(w2.body).toEqual(w1.body);
    const wid = w1.body.data.id as number;
    const i1 = await api('POST', `/api/watchlists/${wid}/items`, { user, body: { assetable: share('GAZP') }, key: 'i' });
    const i2 = await api('POST', `/api/watchlists/${wid}/items`, { user, body: { assetable: share('GAZP') }, key: 'i' });
    expect([i1.status, i2.status]).toEqual([201, 201]);
    expect(i2.body).toEqual(i1.body);
    // Without the key the repeat is a new request, as before: the item is already there.
    expect((await api('POST', `/api/watchlists/${wid}/items`, { user, body: { assetable: share('GAZP') } })).status).toBe(422);
    expect((await api('GET', '/api/portfolios', { user })).body.data).toHaveLength(1);
    expect((await api('GET', '/api/watchlists', { user })).body.data).toHaveLength(1);

    const plain = newUser('plain');
    await api('POST', '/api/watchlists', { user: plain, body: { name: 'W' } });
    await api('POST', '/api/watchlists', { user: plain, body: { name: 'W' } });
    expect((await api('GET', '/api/watchlists', { user: plain })).body.data).toHaveLength(2);
  });

  it('keys belong to their user', async () => {
    const a = newUser('a');
    const b = newUser('b');
    const body = { name: 'Same', currency_code: 'RUB' };
    const pa = await api('POST', '/api/portfolios', { user: a, body, key: 'shared-key' });
    const pb = await api('POST', '/api/portfolios', { user: b, body, key: 'shared-key' });
    expect(pb.status).toBe(201);
    expect(pb.body.data.id).not.toBe(pa.body.data.id);
  });

  it('concurrent duplicates create once and all answer the same', async () => {
    const user = newUser('race');
    const pid = await newPortfolio(user);
    const answers = await Promise.all(Array.from({ length: 6 }, () => api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('LKOH', 1), key: 'race' })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    const n = await portfolios.db.query<{ n: number }>('select count(*)::int as n from deals where portfolio_id = $1', [pid]);
    expect(n[0]!.n).toBe(1);
  });

  it('a key older than 24 hours is forgotten: the repeat creates again', async () => {
    const user = newUser('old');
    const body = { name: 'Old', currency_code: 'RUB' };
    const first = await api('POST', '/api/portfolios', { user, body, key: 'old' });
    await portfolios.db.query("update idempotency_keys set created_at = now() - interval '25 hours' where user_id = $1", [user]);
    const again = await api('POST', '/api/portfolios', { user, body, key: 'old' });
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });

  it('a malformed key is a 422 naming Idempotency-Key before anything is created', async () => {
    const user = newUser('bad');
    for (const key of ['', 'x'.repeat(256), 'with space', 'tab\there']) {
      for (const [path, body] of [
        ['/api/portfolios', { name: 'X', currency_code: 'RUB' }],
        ['/api/watchlists', { name: 'X' }],
        ['/api/custom-assets', { name: 'X', currency: 'RUB', price: 1 }],
      ] as const) {
        const r = await api('POST', path, { user, body, key });
        expect(r.status, `${path} ${JSON.stringify(key)}`).toBe(422);
        expect(Object.keys(r.body.errors)).toEqual(['Idempotency-Key']);
      }
    }
    expect((await api('GET', '/api/portfolios', { user })).body.data).toEqual([]);
    expect((await api('GET', '/api/custom-assets', { user })).body.data).toEqual([]);
  });
});

describe('limits', () => {
  it(`portfolios per user (${LIMITS.portfoliosPerUser}); a keyed repeat of a create still replays at the limit`, async () => {
    const user = newUser('plimit');
    const first = await api('POST', '/api/portfolios', { user, body: { name: '1', currency_code: 'RUB' }, key: 'first' });
    await newPortfolio(user);
    const over = await api('POST', '/api/portfolios', { user, body: { name: '3', currency_code: 'RUB' } });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ portfolios: ['You can have at most 2 portfolios (the portfolios per user limit).'] });
    expect((await api('POST', '/api/portfolios', { user, body: { name: '1', currency_code: 'RUB' }, key: 'first' })).body).toEqual(first.body);
    // Another user is not affected.
    expect((await api('POST', '/api/portfolios', { user: newUser('other'), body: { name: '1', currency_code: 'RUB' } })).status).toBe(201);
  });

  it(`concurrent portfolio creates do not overshoot the limit`, async () => {
    const user = newUser('prace');
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => api('POST', '/api/portfolios', { user, body: { name: `P${i}`, currency_code: 'RUB' } })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(LIMITS.portfoliosPerUser);
    expect(results.filter((r) => r.status === 422)).toHaveLength(6 - LIMITS.portfoliosPerUser);
    expect((await api('GET', '/api/portfolios', { user })).body.data).toHaveLength(LIMITS.portfoliosPerUser);
  });

  it(`deals per portfolio (${LIMITS.dealsPerPortfolio})`, async () => {
    const user = newUser('dlimit');
    const pid = await newPortfolio(user);
    for (let i = 0; i < LIMITS.dealsPerPortfolio; i++) expect((await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 1) })).status).toBe(201);
    const over = await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 1) });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ deals: ['A portfolio can have at most 3 deals (the deals per portfolio limit).'] });
    // After a delete there is room again.
    const deals = (await api('GET', `/api/portfolios/${pid}/deals`, { user })).body.data as { id: number }[];
    expect((await api('DELETE', `/api/portfolios/${pid}/deals/${deals[0]!.id}`, { user })).status).toBe(204);
    expect((await api('POST', `/api/portfolios/${pid}/deals`, { user, body: buy('SBER', 1) })).status).toBe(201);
  });

  it(`watchlists per user (${LIMITS.watchlistsPerUser}) and items per watchlist (${LIMITS.itemsPerWatchlist})`, async () => {
    const user = newUser('wlimit');
    const w = await api('POST', '/api/watchlists', { user, body: { name: '1' } });
    expect((await api('POST', '/api/watchlists', { user, body: { name: '2' } })).status).toBe(201);
    const over = await api('POST', '/api/watchlists', { user, body: { name: '3' } });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ watchlists: ['You can have at most 2 watchlists (the watchlists per user limit).'] });

    const wid = w.body.data.id as number;
    expect((await api('POST', `/api/watchlists/${wid}/items`, { user, body: { assetable: share('SBER') } })).status).toBe(201);
    expect((await api('POST', `/api/watchlists/${wid}/items`, { user, body: { assetable: share('GAZP') } })).status).toBe(201);
    const full = await api('POST', `/api/watchlists/${wid}/items`, { user, body: { assetable: share('LKOH') } });
    expect(full.status).toBe(422);
    expect(full.body.errors).toEqual({ watchlist_items: ['A watchlist can have at most 2 items (the items per watchlist limit).'] });
  });

  it(`custom assets per user (${CUSTOM_ASSETS_LIMIT})`, async () => {
    const user = newUser('calimit');
    for (const name of ['One', 'Two']) expect((await api('POST', '/api/custom-assets', { user, body: { name, currency: 'RUB', price: 1 } })).status).toBe(201);
    const over = await api('POST', '/api/custom-assets', { user, body: { name: 'Three', currency: 'RUB', price: 1 } });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ custom_assets: ['You can have at most 2 custom assets (the custom assets per user limit).'] });
    expect((await api('GET', '/api/custom-assets', { user })).body.data).toHaveLength(2);
  });
});

describe('OpenAPI', () => {
  it('documents the optional Idempotency-Key header on every create route', async () => {
    const res = await fetch(new URL('/api/docs-json', base));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read loosely
    const doc = (await res.json()) as any;
    for (const path of ['/api/portfolios', '/api/portfolios/{id}/deals', '/api/watchlists', '/api/watchlists/{id}/items', '/api/custom-assets']) {
      const header = doc.paths[path].post.parameters.find((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(header, path).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } });
    }
    expect(doc.paths['/api/portfolios'].get.parameters?.some((p: { name: string }) => p.name === 'Idempotency-Key') ?? false).toBe(false);
  });
});
