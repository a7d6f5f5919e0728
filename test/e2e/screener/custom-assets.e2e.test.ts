/**
 * Custom assets across services: the real gateway, screener and portfolios over NATS and Postgres. A rename or a
 * new currency reaches the portfolios that use the asset (AssetUpdated); a delete is refused while a portfolio
 * holds it or a watchlist has it (the screener's used-assets model, fed by the portfolios' events, then the
 * portfolios service itself under the asset's use lock: an add racing the delete is seen or refused).
 */
import { randomUUID } from 'node:crypto';
import { lockAssetUse } from '@invest/portfolios/testing/portfolios-test-kit';
import { blockedBy, holdOpen } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from '../support/full-stack.js';

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

describe('custom asset input', () => {
  it('a JSON number a double cannot hold is a number: a 422 in a text field, read exactly as a price', async () => {
    const send = (raw: string) =>
      fetch(new URL('/api/custom-assets', stack.base), { method: 'POST', headers: { authorization: `Bearer ${tokens.alice}`, 'content-type': 'application/json' }, body: raw });
    for (const [field, raw] of [
      ['name', '{"name":1e400,"currency":"RUB","price":1}'],
      ['name', '{"name":12345678901234567890,"currency":"RUB","price":1}'],
      ['ticker', '{"name":"Lot","ticker":12345678901234567890,"currency":"RUB","price":1}'],
      ['description', '{"name":"Lot","description":0.1000000000000000000001,"currency":"RUB","price":1}'],
    ] as const) {
      const res = await send(raw);
      expect(res.status, raw).toBe(422);
      expect(Object.keys(((await res.json()) as { errors: Record<string, unknown> }).errors), raw).toEqual([field]);
    }
    const exact = await send('{"name":"Lot","currency":"RUB","price":999999999999999.99999999}');
    expect(exact.status).toBe(201);
    expect(await exact.text()).toContain('"current_rate":999999999999999.99999999');
  });
});

describe('a delete racing a new use of the asset', () => {
  /** Backends of `db`'s server waiting for a lock the backend `pid` holds, polled until there are `n`. */
  async function waitersIn(db: { query: FullStack['portfolios']['db']['query'] }, pid: number, n: number): Promise<void> {
    await expect.poll(async () => (await db.query('select 1 from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))', [pid])).length, POLL).toBe(n);
  }
  const waiters = (pid: number, n: number) => waitersIn(stack.portfolios.db, pid, n);
  const ids = (rows: { id: number }[]) => rows.map((a) => a.id);

  it('an add that checked the asset and has not committed is waited for, and its use refuses the delete', async () => {
    const asset = await createAsset({ name: 'Cabin', currency: 'RUB', price: 10 });
    const watchlist = (await api('POST', '/api/watchlists', { body: { name: 'Cabins' } })).body.data.id as number;
    // Such an add: the asset's use lock taken before its check, its item written, not yet committed (no event yet).
    const add = await holdOpen(stack.portfolios.db, async (tx) => {
      await lockAssetUse(tx, asset);
      await tx.query(`insert into watchlist_items (watchlist_id, asset_type, asset_id) values ($1, 'custom_asset', $2)`, [watchlist, asset.id]);
    });
    const deleting = api('DELETE', `/api/custom-assets/${asset.id}`);
    expect(await blockedBy(stack.portfolios.db, add.pid, deleting)).toBe(true);
    // Hidden while portfolios is asked: a check of a new use made now finds no asset.
    expect(ids((await api('GET', '/api/custom-assets')).body.data)).not.toContain(asset.id);
    add.release();
    await add.done;
    expect(await deleting).toEqual({
      status: 409,
      body: { message: `The custom asset is in use (watchlist ${watchlist}); remove it from there first.`, used_in: [{ type: 'watchlist', id: watchlist }] },
    });
    expect(ids((await api('GET', '/api/custom-assets')).body.data)).toContain(asset.id);
  });

  it('an add whose check saw the asset before the delete hid it is refused once the delete asked (it completes)', async () => {
    const asset = await createAsset({ name: 'Canoe', currency: 'RUB', price: 10 });
    const portfolio = (await api('POST', '/api/portfolios', { body: { name: 'Boats', currency_code: 'RUB' } })).body.data.id as number;
    // The add checks the asset with the screener (it exists), then its transaction waits for the portfolio's row.
    const row = await holdOpen(stack.portfolios.db, (tx) => tx.query('select 1 from portfolios where id = $1 for update', [portfolio]));
    const adding = api('POST', `/api/portfolios/${portfolio}/deals`, { body: trade('buy', asset, 1) });
    await waiters(row.pid, 1);
    // Meanwhile the delete hides the asset and asks: no use yet, so it is deleted (and leaves a fence).
    expect((await api('DELETE', `/api/custom-assets/${asset.id}`)).status).toBe(204);
    row.release();
    await row.done;
    expect(await adding).toMatchObject({ status: 422, body: { errors: { 'assetable.id': [`The selected custom_asset (id ${asset.id}) does not exist.`] } } });
    expect((await api('GET', `/api/portfolios/${portfolio}/deals`)).body.data).toEqual([]);
  });

  it('an add holds no transaction while it asks the screener (a slow screener stalls nothing else)', async () => {
    const asset = await createAsset({ name: 'Slow', currency: 'RUB', price: 10 });
    const watchlists: number[] = [];
    for (let i = 0; i < 3; i++) watchlists.push((await api('POST', '/api/watchlists', { body: { name: `Slow ${i}` } })).body.data.id);
    // The screener cannot answer the ownership check while its custom_assets table is locked.
    const slow = await holdOpen(stack.screener.db, (tx) => tx.query('lock table custom_assets in access exclusive mode'));
    const adds = watchlists.map((w) => api('POST', `/api/watchlists/${w}/items`, { body: { assetable: asset } }));
    try {
      // The three checks are waiting in the screener (blocked by the lock), and none holds a portfolios transaction.
      await waitersIn(stack.screener.db, slow.pid, 3);
      const portfoliosDb = new URL(stack.portfolios.db.url).pathname.slice(1);
      expect(await stack.portfolios.db.query("select pid from pg_stat_activity where datname = $1 and state like 'idle in transaction%'", [portfoliosDb])).toEqual([]);
    } finally {
      slow.release();
      await slow.done;
    }
    expect((await Promise.all(adds)).map((r) => r.status)).toEqual([201, 201, 201]);
  });

  it('deleting a sell does not open a position again on a custom asset deleted meanwhile (422)', async () => {
    const asset = await createAsset({ name: 'Reopened', currency: 'RUB', price: 10 });
    const portfolio = (await api('POST', '/api/portfolios', { body: { name: 'Closed', currency_code: 'RUB' } })).body.data.id as number;
    expect((await api('POST', `/api/portfolios/${portfolio}/deals`, { body: { ...trade('buy', asset, 5), date: '2024-01-10' } })).status).toBe(201);
    const sell = await api('POST', `/api/portfolios/${portfolio}/deals`, { body: { ...trade('sell', asset, 5), date: '2024-01-11' } });
    expect(sell.status).toBe(201);
    // A closed position is not a use: the asset can be deleted (once the used-assets model has seen the sell).
    await expect.poll(async () => (await api('DELETE', `/api/custom-assets/${asset.id}`)).status, POLL).toBe(204);
    expect(await api('DELETE', `/api/portfolios/${portfolio}/deals/${sell.body.data.id}`)).toEqual({
      status: 422,
      body: { message: 'Deleting this deal would open a position again in an asset that no longer exists.', errors: { deal: ['Deleting this deal would open a position again in an asset that no longer exists.'] } },
    });
    expect((await api('GET', `/api/portfolios/${portfolio}`)).body.data).toMatchObject({ deals_count: 2, positions_count: 0 });
  });

  it('sent together, an add and a delete never both succeed', async () => {
    const portfolio = (await api('POST', '/api/portfolios', { body: { name: 'Race', currency_code: 'RUB' } })).body.data.id as number;
    const watchlist = (await api('POST', '/api/watchlists', { body: { name: 'Race' } })).body.data.id as number;
    const outcomes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const asset = await createAsset({ name: `Race ${i}`, currency: 'RUB', price: 10 });
      const add =
        i % 2 === 0
          ? api('POST', `/api/portfolios/${portfolio}/deals`, { body: trade('buy', asset, 1) })
          : api('POST', `/api/watchlists/${watchlist}/items`, { body: { assetable: asset } });
      const [added, deleted] = await Promise.all([add, api('DELETE', `/api/custom-assets/${asset.id}`)]);
      outcomes.push(`${added.status}/${deleted.status}`);
      // One of the two wins: the use (the delete is a 409 naming it) or the delete (the add finds no asset).
      expect([`201/409`, `422/204`]).toContain(`${added.status}/${deleted.status}`);
    }
    // What portfolios holds agrees: every deal and item left is on an asset that still exists.
    const existing = new Set(ids((await api('GET', '/api/custom-assets')).body.data));
    const deals = (await api('GET', `/api/portfolios/${portfolio}/deals`)).body.data as { asset: { id: number } }[];
    const items = (await api('GET', '/api/watchlists')).body.data.find((w: { id: number }) => w.id === watchlist).items as { asset: { id: number } }[];
    for (const used of [...deals, ...items]) expect(existing.has(used.asset.id)).toBe(true);
    expect(deals.length + items.length).toBe(outcomes.filter((o) => o === '201/409').length);
  });
});
