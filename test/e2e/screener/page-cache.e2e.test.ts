/**
 * The public screener at scale, on the real stack (screener with demo data, gateway, NATS, Postgres): entity
 * tags and 304s, the gateway's page cache (hits make no NATS request, concurrent misses one), its invalidation
 * when rates change (a rate written, and its RatesUpdated recorded and relayed to MARKET_EVENTS as the
 * screener's rate writer does), and what is
 * never cached. NATS requests are counted by a plain subscription to the screener's list subject, which sees
 * every request the gateway sends there.
 */
import { EventStreams, type ListSharesReply, listSharesQuerySchema, type ShareRow, STREAM_HEADER, Subjects } from '@invest/contracts';
import { busSubject, createLogger } from '@invest/platform';
import { eventuallyTruthy, testNatsUrl } from '@invest/platform/testing/index';
import { recordRatesForTest } from '@invest/screener/testing/rates-test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken, withLinks } from '@invest/gateway/testing/gateway-test-kit';
import { createGatewayApp, type GatewayApp } from '@invest/gateway/gateway.app';
import { type FullStack, startFullStack } from '../support/full-stack.js';

const SECRET = 'screener-cache-e2e-secret-0123456789-0123456789';
/** Long enough that within a test only an invalidation, never the clock, can renew a page. */
const TTL_MS = 120_000;

let stack: FullStack;
/** A second gateway instance on the same bus: each instance must clear its own cache. */
let second: GatewayApp;
let secondBase: string;
let token: string;
let listRequests = 0;

interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

async function get(path: string, headers: Record<string, string> = {}, base = stack.base): Promise<Answer> {
  const res = await fetch(new URL(path, base), { headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Waits until the count of list requests seen on NATS is settled (a request is counted when it is delivered). */
async function requestsSeen(): Promise<number> {
  await stack.bus.nc.flush();
  return listRequests;
}


beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwscache',
    tickers: ['SBER'],
    screener: { relayPollMs: 50 },
    gateway: { auth: { jwtSecret: SECRET }, readyServices: ['screener'], publicScreenerCache: { ttlMs: TTL_MS } },
  });
  second = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix: stack.busPrefix, logger: createLogger('gateway-2', 'silent'), publicScreenerCache: { ttlMs: TTL_MS } });
  secondBase = await second.listen(0, '127.0.0.1');
  token = await mintDevToken('cache-reader', SECRET);
  stack.bus.nc.subscribe(busSubject(stack.busPrefix, Subjects.screener.sharesList), { callback: () => void listRequests++ });
  await stack.bus.nc.flush();
});

afterAll(async () => {
  await second?.close();
  await stack?.close();
});

describe('entity tags and conditional requests', () => {
  it('answers the same bytes as the uncached path, with a strong ETag that is stable while the data are', async () => {
    const path = '/api/public/shares?sort=dividend_yield&direction=desc&per_page=7';
    const first = await get(path);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    expect(first.headers.get('cache-control')).toBe(`public, max-age=${TTL_MS / 1000}`);
    expect(first.headers.get('vary')).toBeNull();
    const second = await get(path);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.text).toBe(first.text);
    // What the gateway answered before it had a cache: the service's page with links, serialized by JSON.stringify.
    const reply = await stack.gw.rpc.request<ListSharesReply>(Subjects.screener.sharesList, listSharesQuerySchema.parse({ sort: 'dividend_yield', direction: 'desc', per_page: '7' }));
    expect(first.text).toBe(JSON.stringify(withLinks(reply, path)));
    // A signed-in reader (never cached) gets the same page and the same tag.
    const signedIn = await get(path, { authorization: `Bearer ${token}` });
    expect(signedIn.text).toBe(first.text);
    expect(signedIn.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('answers 304 without a body when If-None-Match matches: exact, weak, in a list, or *', async () => {
    const path = '/api/public/shares?per_page=3';
    const page = await get(path);
    const etag = page.headers.get('etag')!;
    for (const value of [etag, `W/${etag}`, `"nope", ${etag}`, `W/"nope" ,W/${etag}`, '*']) {
      const res = await get(path, { 'if-none-match': value });
      expect(res.status, value).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe(`public, max-age=${TTL_MS / 1000}`);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
    for (const value of ['"nope"', etag.slice(0, -2) + '"', 'W/"nope", "other"']) {
      const res = await get(path, { 'if-none-match': value });
      expect(res.status, value).toBe(200);
      expect(res.text).toBe(page.text);
    }
  });

  it('the signed-in route is private, varies on Authorization and also answers 304', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const page = await get('/api/shares?per_page=2', auth);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('private, no-cache');
    expect(page.headers.get('vary')).toBe('Authorization');
    const again = await get('/api/shares?per_page=2', { ...auth, 'if-none-match': page.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.headers.get('vary')).toBe('Authorization');
  });

  it('an invalid query is still a 422, never a cached page', async () => {
    const res = await get('/api/public/shares?sort=nonsense', { 'if-none-match': '*' });
    expect(res.status).toBe(422);
    expect(res.headers.get('etag')).toBeNull();
  });
});

describe('the gateway page cache', () => {
  it('serves a hot page without a NATS request; parameter order and defaults share one entry', async () => {
    const before = await requestsSeen();
    const first = await get('/api/public/shares?country_code=ru&per_page=5');
    expect(first.status).toBe(200);
    expect(await requestsSeen()).toBe(before + 1);
    for (let i = 0; i < 5; i++) expect((await get('/api/public/shares?country_code=ru&per_page=5')).text).toBe(first.text);
    // Same query spelled differently: defaults written out, other order, other case.
    const spelled = await get('/api/public/shares?page=1&per_page=5&direction=desc&country_code=RU&sort=market_cap');
    expect(spelled.headers.get('etag')).toBe(first.headers.get('etag'));
    // Its links keep its own spelling, exactly as the uncached path writes them.
    const body = JSON.parse(spelled.text) as { links: { first: string } };
    expect(body.links.first).toBe('/api/public/shares?page=1&per_page=5&direction=desc&country_code=RU&sort=market_cap');
    expect(await requestsSeen()).toBe(before + 1);
  });

  it('keeps different queries apart', async () => {
    const before = await requestsSeen();
    const paths = ['/api/public/shares?per_page=4', '/api/public/shares?per_page=4&page=2', '/api/public/shares?per_page=4&direction=asc', '/api/public/shares?per_page=4&search=sber'];
    const pages = [];
    for (const path of paths) pages.push(await get(path));
    expect(await requestsSeen()).toBe(before + paths.length);
    expect(new Set(pages.map((p) => p.headers.get('etag'))).size).toBe(paths.length);
    const rows = pages.map((p) => (JSON.parse(p.text) as { data: ShareRow[] }).data.map((r) => r.asset).join());
    expect(new Set(rows).size).toBe(paths.length);
    // Each still answers its own page from memory.
    for (let i = 0; i < paths.length; i++) expect((await get(paths[i]!)).text).toBe(pages[i]!.text);
    expect(await requestsSeen()).toBe(before + paths.length);
  });

  it('concurrent misses of one page make one NATS request', async () => {
    stack.gw.publicPages.invalidate();
    const before = await requestsSeen();
    const answers = await Promise.all(Array.from({ length: 20 }, () => get('/api/public/shares?per_page=9&sort=trading_volume')));
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(await requestsSeen()).toBe(before + 1);
  });

  it('never serves or keeps a page for a request with credentials', async () => {
    const path = '/api/public/shares?per_page=6';
    await get(path);
    const before = await requestsSeen();
    await get(path, { authorization: `Bearer ${token}` });
    await get(path, { authorization: 'Bearer not-even-a-token' });
    await get(path, { cookie: 'session=1' });
    expect(await requestsSeen()).toBe(before + 3);
    await get('/api/shares?per_page=6', { authorization: `Bearer ${token}` });
    await get('/api/shares?per_page=6', { authorization: `Bearer ${token}` });
    expect(await requestsSeen()).toBe(before + 5);
    // Nor did they put anything in the cache: a new query asked with credentials is still a miss anonymously.
    await get('/api/public/shares?per_page=11', { authorization: `Bearer ${token}` });
    await get('/api/public/shares?per_page=11');
    expect(await requestsSeen()).toBe(before + 7);
  });

  it('a rates update from the screener clears the cache of every gateway: the next page has the new rate and a new ETag', async () => {
    const path = '/api/public/shares?search=SBER';
    const before = await get(path);
    const beforeOnSecond = await get(path, {}, secondBase);
    expect(beforeOnSecond.text).toBe(before.text);
    const rowOf = (a: Answer) => (JSON.parse(a.text) as { data: ShareRow[] }).data.find((r) => r.asset === 'SBER')!;
    const oldRate = rowOf(before).current_rate!;
    expect((await get(path)).headers.get('etag')).toBe(before.headers.get('etag'));
    const newRate = Math.round(oldRate * 100 + 137) / 100;
    const asOf = new Date().toISOString();
    await stack.screener.db.query("update assets set current_rate = $1, rate_updated_at = $2 where type = 'share' and ticker = 'SBER'", [newRate, asOf]);
    // The page changed in the database but the caches do not know yet.
    expect((await get(path)).text).toBe(before.text);
    expect((await get(path, {}, secondBase)).text).toBe(before.text);
    const rates = [{ assetType: 'share' as const, assetId: stack.shareIds.SBER!, ticker: 'SBER', currency: 'RUB', rate: newRate, priceChangePercentage24h: null, asOf }];
    expect(await recordRatesForTest(stack.screener.db, 'share', 'get:assetRates', rates)).toBe(1);
    // Relayed after the commit; the TTL is far away, so only the event can renew the page.
    const after = await eventuallyTruthy(async () => {
      const a = await get(path);
      return a.headers.get('etag') !== before.headers.get('etag') && a;
    }, 'the cached page to be replaced', 15_000);
    expect(rowOf(after).current_rate).toBe(newRate);
    const afterOnSecond = await eventuallyTruthy(async () => {
      const a = await get(path, {}, secondBase);
      return a.text !== before.text && a;
    }, 'the second gateway to drop its page', 15_000);
    expect(afterOnSecond.text).toBe(after.text);
    expect(afterOnSecond.headers.get('etag')).toBe(after.headers.get('etag'));
    const revalidated = await get(path, { 'if-none-match': before.headers.get('etag')! });
    expect(revalidated.status).toBe(200);
    expect(revalidated.text).toBe(after.text);
    expect((await get(path, { 'if-none-match': after.headers.get('etag')! })).status).toBe(304);
  });

  it("a user's custom asset writes clear no gateway's cache (they are never on the share screener)", async () => {
    const path = '/api/public/shares?per_page=5&sort=dividend_yield';
    // Market events seen on the bus, by the stream the relay names in their header.
    const streams: string[] = [];
    const sub = stack.bus.nc.subscribe(busSubject(stack.busPrefix, `${EventStreams.market.root}.>`), {
      callback: (_err, msg) => void streams.push(msg.headers?.get(STREAM_HEADER) ?? '(none)'),
    });
    await stack.bus.nc.flush();
    try {
      const first = await get(path);
      await get(path, {}, secondBase);
      const hot = await requestsSeen();
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const made = await fetch(new URL('/api/custom-assets', stack.base), { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Garage', ticker: 'GRG', currency: 'RUB', price: 100 }) });
      expect(made.status).toBe(201);
      const id = ((await made.json()) as { data: { id: number } }).data.id;
      for (const body of [{ price: 101 }, { name: 'Big garage' }]) {
        expect((await fetch(new URL(`/api/custom-assets/${id}`, stack.base), { method: 'PATCH', headers: auth, body: JSON.stringify(body) })).status).toBe(200);
      }
      expect((await fetch(new URL(`/api/custom-assets/${id}`, stack.base), { method: 'DELETE', headers: { authorization: auth.authorization } })).status).toBe(204);
      // Each write's event went out (RatesUpdated twice, AssetUpdated, AssetDeleted), so both gateways heard them.
      await eventuallyTruthy(async () => streams.length >= 4 && streams, 'the custom asset events on MARKET_EVENTS', 15_000);
      expect(streams).toEqual(['rates-custom_asset', 'rates-custom_asset', `asset-custom_asset-${id}`, `asset-custom_asset-${id}`]);
      await stack.bus.nc.flush();
      expect((await get(path)).text).toBe(first.text);
      expect((await get(path, {}, secondBase)).text).toBe(first.text);
      expect(await requestsSeen()).toBe(hot);
    } finally {
      sub.unsubscribe();
    }
  });

  it('answers HEAD with the headers of the page and no body', async () => {
    const page = await get('/api/public/shares?per_page=3');
    const res = await fetch(new URL('/api/public/shares?per_page=3', stack.base), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(page.headers.get('etag'));
    expect(res.headers.get('cache-control')).toBe(page.headers.get('cache-control'));
    expect(await res.text()).toBe('');
  });

  it('keeps answering a cached page while the screener is down, but nothing it has not cached', async () => {
    const path = '/api/public/shares?per_page=8';
    const page = await get(path);
    await stack.screener.close();
    const later = await get(path);
    expect(later.status).toBe(200);
    expect(later.text).toBe(page.text);
    expect((await get('/api/public/shares?per_page=8&page=3')).status).toBe(503);
  });
});
