/**
 * Custom assets through HTTP: the real gateway and the real screener over NATS and Postgres (fresh database,
 * unique bus prefix). A price set through the API reaches MARKET_EVENTS as RatesUpdated.
 */
import { randomUUID } from 'node:crypto';
import type { BusEvent, RatesUpdatedV1 } from '@invest/contracts';
import { type Bus, connectBus, createLogger, streamNameOf } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { createScreenerApp, type ScreenerApp } from '@invest/screener/screener.app';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '../auth/dev-token.js';
import { createGatewayApp, type GatewayApp } from '../gateway.app.js';

const SECRET = 'custom-assets-secret-0123456789-0123456789';
const busPrefix = `${uniqueName('gwca')}.`;
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;

let screener: ScreenerApp;
let gw: GatewayApp;
let bus: Bus;
let base: string;
let drop: () => Promise<void>;
const tokens: Record<string, string> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, opts: { as?: string; body?: unknown; raw?: string } = {}): Promise<{ status: number; body: any; text: string }> {
  const headers: Record<string, string> = {};
  if (opts.as) headers.authorization = `Bearer ${tokens[opts.as]}`;
  if (opts.body !== undefined || opts.raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(path, base), { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

/** RatesUpdated of custom assets on MARKET_EVENTS, read back from JetStream. */
async function customRates() {
  const stream = streamNameOf(bus, 'market');
  const { state } = await bus.jsm.streams.info(stream);
  const rates = [];
  for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
    const m = await bus.jsm.streams.getMessage(stream, { seq });
    if (m) rates.push(...m.json<BusEvent<RatesUpdatedV1>>().data.rates.filter((r) => r.assetType === 'custom_asset'));
  }
  return rates;
}

beforeAll(async () => {
  const db = await createTestDatabase('gwca_scr');
  drop = db.drop;
  const silent = createLogger('test', 'silent');
  screener = await createScreenerApp({ databaseUrl: db.url, natsUrl: testNatsUrl(), busPrefix, logger: silent, loadDemoData: false, relayPollMs: 50 });
  gw = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix, auth: { jwtSecret: SECRET }, rpcTimeoutMs: 5000, readyServices: ['screener'], logger: silent });
  base = await gw.listen(0, '127.0.0.1');
  bus = await connectBus({ natsUrl: testNatsUrl(), name: 'gwca-test', prefix: busPrefix });
  tokens.alice = await mintDevToken(ALICE, SECRET);
  tokens.bob = await mintDevToken(BOB, SECRET);
});

afterAll(async () => {
  await gw?.close();
  if (bus) {
    for (const ctx of ['market', 'portfolios'] as const) await bus.jsm.streams.delete(streamNameOf(bus, ctx)).catch(() => undefined);
    await bus.close();
  }
  await screener?.close();
  await drop?.();
});

describe('/api/custom-assets', () => {
  it('needs a signed-in user', async () => {
    expect((await api('GET', '/api/custom-assets')).status).toBe(401);
    expect((await api('POST', '/api/custom-assets', { body: { name: 'x', currency: 'RUB', price: 1 } })).status).toBe(401);
  });

  it('creates, lists and reprices for the owner only, publishing the new price', async () => {
    const created = await api('POST', '/api/custom-assets', { as: 'alice', body: { name: 'Flat', ticker: 'FLAT1', currency: 'RUB', price: 9_500_000 } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ type: 'custom_asset', ticker: 'FLAT1', name: 'Flat', currency: 'RUB', current_rate: 9_500_000, description: null });
    const id = created.body.data.id as number;

    expect((await api('GET', '/api/custom-assets', { as: 'alice' })).body).toEqual({ data: [created.body.data] });
    expect((await api('GET', '/api/custom-assets', { as: 'bob' })).body).toEqual({ data: [] });
    expect((await api('PATCH', `/api/custom-assets/${id}`, { as: 'bob', body: { price: 1 } })).status).toBe(404);
    expect((await api('PATCH', '/api/custom-assets/not-a-number', { as: 'alice', body: { price: 1 } })).status).toBe(404);
    for (const bad of ['0', '00', '-1', '1.5', '1e3', '999999999999999999']) {
      expect((await api('PATCH', `/api/custom-assets/${bad}`, { as: 'alice', body: { price: 1 } })).status, bad).toBe(404);
    }

    const repriced = await api('PATCH', `/api/custom-assets/${id}`, { as: 'alice', body: { price: '9700000', description: 'two rooms' } });
    expect(repriced.status).toBe(200);
    expect(repriced.body.data).toMatchObject({ id, current_rate: 9_700_000, description: 'two rooms' });

    await expect.poll(async () => (await customRates()).map((r) => [r.assetId, r.rate]), { timeout: 5_000 }).toEqual([
      [id, 9_500_000],
      [id, 9_700_000],
    ]);
  });

  it('answers 422 naming each bad field, before asking the screener', async () => {
    const bad = await api('POST', '/api/custom-assets', { as: 'alice', body: { name: '', currency: 'ZZZ', price: 0 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['currency', 'name', 'price']);
    const empty = await api('PATCH', '/api/custom-assets/1', { as: 'alice', body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.message).toMatch(/at least one of/);
  });

  it('answers 422, not 500, for text Postgres cannot store (NUL)', async () => {
    const created = await api('POST', '/api/custom-assets', { as: 'alice', body: { name: 'a\u0000b', currency: 'RUB', price: 1, description: 'x\u0000' } });
    expect(created.status).toBe(422);
    expect(Object.keys(created.body.errors).sort()).toEqual(['description', 'name']);
    const id = (await api('POST', '/api/custom-assets', { as: 'alice', body: { name: 'Nul', currency: 'RUB', price: 1 } })).body.data.id as number;
    const patched = await api('PATCH', `/api/custom-assets/${id}`, { as: 'alice', body: { name: 'x\u0000', description: '\u0000' } });
    expect(patched.status).toBe(422);
    expect(Object.keys(patched.body.errors).sort()).toEqual(['description', 'name']);
  });

  it('answers 422 for a price that is not a number or a numeric string', async () => {
    for (const price of [true, [5], { v: 5 }, '0x10', '', ' ']) {
      const res = await api('POST', '/api/custom-assets', { as: 'alice', body: { name: 'Typed', currency: 'RUB', price } });
      expect(res.status, JSON.stringify(price)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['price']);
    }
    const ok = await api('POST', '/api/custom-assets', { as: 'alice', body: { name: 'Typed', currency: 'RUB', price: ' 12.5 ' } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.current_rate).toBe(12.5);
  });

  it('answers the price with exactly the digits it was given, under the same rule as deals', async () => {
    const created = await api('POST', '/api/custom-assets', { as: 'alice', raw: '{"name":"Long","currency":"RUB","price":123456789.12345678}' });
    expect(created.status, created.text).toBe(201);
    expect(created.text).toContain('"current_rate":123456789.12345678,');
    const id = created.body.data.id as number;
    const repriced = await api('PATCH', `/api/custom-assets/${id}`, { as: 'alice', raw: '{"price":"999999999999999.99999999"}' });
    expect(repriced.text).toContain('"current_rate":999999999999999.99999999,');
    expect((await api('GET', '/api/custom-assets', { as: 'alice' })).text).toContain('"current_rate":999999999999999.99999999,');
    for (const price of ['0.000000001', 1e-300, '1e16']) {
      const res = await api('PATCH', `/api/custom-assets/${id}`, { as: 'alice', body: { price } });
      expect(res.status, String(price)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['price']);
    }
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await (await fetch(new URL('/api/docs-json', base))).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths['/api/custom-assets'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/custom-assets/{id}']?.patch?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '404', '422']));
    expect(Object.keys(doc.paths['/api/custom-assets/{id}']?.delete?.responses ?? {})).toEqual(expect.arrayContaining(['204', '401', '404', '409']));
  });
});
