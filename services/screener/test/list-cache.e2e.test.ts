/**
 * The screener page cache: with a TTL, a page is served from memory until it expires; without one
 * (the tests' default), every request after a write sees the write.
 */
import { type ListSharesReply, Subjects } from '@invest/contracts';
import { createLogger, RpcClient } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScreenerApp, type ScreenerApp } from '../src/screener.app.js';

const logger = createLogger('screener-cache-test', 'silent');

describe('screener page cache', () => {
  const apps: ScreenerApp[] = [];
  const drops: (() => Promise<void>)[] = [];
  let cached: RpcClient;
  let uncached: RpcClient;

  beforeAll(async () => {
    const db = await createTestDatabase('scr_cache');
    drops.push(db.drop);
    const cachedPrefix = `${uniqueName('scrc')}.`;
    const uncachedPrefix = `${uniqueName('scru')}.`;
    // Two screeners over one database: one caching for a minute, one not.
    apps.push(await createScreenerApp({ databaseUrl: db.url, natsUrl: testNatsUrl(), busPrefix: cachedPrefix, logger, relay: false, usedAssetsConsumer: false, listCacheTtlMs: 60_000 }));
    apps.push(await createScreenerApp({ databaseUrl: db.url, natsUrl: testNatsUrl(), busPrefix: uncachedPrefix, logger, relay: false, usedAssetsConsumer: false, loadDemoData: false }));
    cached = RpcClient.create({ natsUrl: testNatsUrl(), name: 'cache-test', defaultTimeoutMs: 10_000, busPrefix: cachedPrefix });
    uncached = RpcClient.create({ natsUrl: testNatsUrl(), name: 'cache-test-2', defaultTimeoutMs: 10_000, busPrefix: uncachedPrefix });
  });
  afterAll(async () => {
    await cached?.close();
    await uncached?.close();
    for (const app of apps) await app.close();
    for (const drop of drops) await drop();
  });

  it('serves a cached page until its TTL while an uncached screener sees the write at once', async () => {
    const query = { sort: 'market_cap', direction: 'desc', per_page: 1 };
    const before = await cached.request<ListSharesReply>(Subjects.screener.sharesList, query);
    const top = before.data[0]!;
    await apps[0]!.db.query('update assets set name = $2 where id = $1', [top.id, 'Renamed in the database']);

    const fromCache = await cached.request<ListSharesReply>(Subjects.screener.sharesList, query);
    expect(fromCache.data[0]!.name).toBe(top.name);
    const fresh = await uncached.request<ListSharesReply>(Subjects.screener.sharesList, query);
    expect(fresh.data[0]!.name).toBe('Renamed in the database');
    // A different query is a different page: not served from the first one's entry.
    const other = await cached.request<ListSharesReply>(Subjects.screener.sharesList, { ...query, per_page: 2 });
    expect(other.data[0]!.name).toBe('Renamed in the database');
  });
});
