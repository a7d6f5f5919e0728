/**
 * Custom assets across services: the real gateway, screener and portfolios over NATS and Postgres. A rename or a
 * new currency reaches the portfolios that use the asset (AssetUpdated); a delete is refused while a portfolio
 * holds it or a watchlist has it (the screener's used-assets model, fed by the portfolios' events).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '../src/auth/dev-token.js';
import { type FullStack, startFullStack } from './support/full-stack.js';

const SECRET = 'custom-assets-e2e-secret-0123456789-0123456789';
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;
const POLL = { timeout: 10_000, interval: 100 };

let stack: FullStack;
const tokens: Record<string, string> = {};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, opts: { as?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens[opts.as ?? 'alice']}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(path, stack.base), { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  stack = await startFullStack({
    name: 'gwcax',
    tickers: [],
    screener: { loadDemoData: false, relayPollMs: 50 },
    portfolios: { relayPollMs: 50 },
    gateway: { auth: { jwtSecret: SECRET } },
  });
  tokens.alice = await mintDevToken(ALICE, SECRET);
  tokens.bob = await mintDevToken(BOB, SECRET);
});
afterAll(() => stack?.close());

async function createAsset(body: Record<string, unknown>): Promise<{ type: 'custom_asset'; id: number }> {
  const made = await api('POST', '/api/custom-assets', { body });
  expect(made.status).toBe(201);
  return { type: 'custom_asset', id: made.body.data.id as number };
}
const trade = (type: 'buy' | 'sell', assetable: { type: string; id: number }, quantity: number) => ({
  type,
  assetable,
  quantity,
  price: 1000,
  commission: 0,
  date: '2024-01-10',
});

describe('custom assets in portfolios', () => {
  it('a rename and a new currency reach deals, watchlists and (cached) statistics', async () => {
    const asset = await createAsset({ name: 'Dacha', ticker: 'DACHA', currency: 'RUB', price: 1000 });
    const portfolio = (await api('POST', '/api/portfolios', { body: { name: 'Home', currency_code: 'RUB' } })).body.data.id as number;
    expect((await api('POST', `/api/portfolios/${portfolio}/deals`, { body: trade('buy', asset, 2) })).status).toBe(201);
    const watchlist = (await api('POST', '/api/watchlists', { body: { name: 'Houses' } })).body.data.id as number;
    expect((await api('POST', `/api/watchlists/${watchlist}/items`, { body: { assetable: asset } })).status).toBe(201);

    const views = async () => {
      const deal = (await api('GET', `/api/portfolios/${portfolio}/deals`)).body.data[0].asset;
      const item = (await api('GET', '/api/watchlists')).body.data.find((w: { id: number }) => w.id === watchlist).items[0].asset;
      const stat = (await api('GET', `/api/portfolios/${portfolio}/statistics`)).body.data.tickers[0];
      return {
        deal: [deal.ticker, deal.name, deal.currency],
        item: [item.ticker, item.name, item.currency],
        stat: [stat.ticker, stat.title, stat.currency],
      };
    };
    // The statistics answer is cached from here on.
    expect(await views()).toEqual({ deal: ['DACHA', 'Dacha', 'RUB'], item: ['DACHA', 'Dacha', 'RUB'], stat: ['DACHA', 'Dacha', 'RUB'] });

    const patched = await api('PATCH', `/api/custom-assets/${asset.id}`, { body: { name: 'Country house', ticker: 'HOUSE', currency: 'USD' } });
    expect(patched.status).toBe(200);
    const after = ['HOUSE', 'Country house', 'USD'];
    await expect.poll(views, POLL).toEqual({ deal: after, item: after, stat: after });
  });

  it('deletes only the owner’s asset, and not while a portfolio holds it or a watchlist has it', async () => {
    const asset = await createAsset({ name: 'Boat', currency: 'RUB', price: 1000 });
    expect((await api('DELETE', `/api/custom-assets/${asset.id}`, { as: 'bob' })).status).toBe(404);

    const portfolio = (await api('POST', '/api/portfolios', { body: { name: 'Toys', currency_code: 'RUB' } })).body.data.id as number;
    expect((await api('POST', `/api/portfolios/${portfolio}/deals`, { body: trade('buy', asset, 1) })).status).toBe(201);
    const watchlist = (await api('POST', '/api/watchlists', { body: { name: 'Boats' } })).body.data.id as number;
    const item = (await api('POST', `/api/watchlists/${watchlist}/items`, { body: { assetable: asset } })).body.data.id as number;

    await expect.poll(() => api('DELETE', `/api/custom-assets/${asset.id}`), POLL).toEqual({
      status: 409,
      body: {
        message: `The custom asset is in use (portfolio ${portfolio}, watchlist ${watchlist}); remove it from there first.`,
        used_in: [
          { type: 'portfolio', id: portfolio },
          { type: 'watchlist', id: watchlist },
        ],
      },
    });

    // Selling everything closes the position; the deals stay as history. Removing the item frees the asset.
    expect((await api('POST', `/api/portfolios/${portfolio}/deals`, { body: trade('sell', asset, 1) })).status).toBe(201);
    expect((await api('DELETE', `/api/watchlists/${watchlist}/items/${item}`)).status).toBe(204);
    await expect.poll(async () => (await api('DELETE', `/api/custom-assets/${asset.id}`)).status, POLL).toBe(204);

    expect((await api('GET', '/api/custom-assets')).body.data.map((a: { id: number }) => a.id)).not.toContain(asset.id);
    expect((await api('DELETE', `/api/custom-assets/${asset.id}`)).status).toBe(404);
    const deals = (await api('GET', `/api/portfolios/${portfolio}/deals`)).body.data;
    expect(deals.map((d: { type: string; asset: { name: string } }) => [d.type, d.asset.name])).toEqual([
      ['sell', 'Boat'],
      ['buy', 'Boat'],
    ]);
    // Nothing new may refer to it.
    expect((await api('POST', `/api/portfolios/${portfolio}/deals`, { body: trade('buy', asset, 1) })).status).toBe(422);
  });
});
