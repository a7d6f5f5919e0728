/**
 * "Identical concurrent screener requests share one query" (SCREENER_CACHE_TTL_MS=0 caches nothing
 * else), through the real service over NATS: the shares table is locked, so each query the service
 * sends waits in Postgres where pg_stat_activity shows it; identical requests must show as one.
 */
import { type ListSharesReply, Subjects } from '@invest/contracts';
import { createLogger, RpcClient } from '@invest/platform';
import { createTestDatabase, eventually, testNatsUrl, testPostgresUrl, uniqueName } from '@invest/platform/testing/index';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScreenerApp, type ScreenerApp } from '../src/screener.app.js';

const logger = createLogger('screener-coalescing-test', 'silent');
const IDENTICAL = 6;

let app: ScreenerApp;
let rpc: RpcClient;
let db: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  db = await createTestDatabase('scr_coalesce');
  const busPrefix = `${uniqueName('scrco')}.`;
  app = await createScreenerApp({ databaseUrl: db.url, natsUrl: testNatsUrl(), busPrefix, logger, relay: false, usedAssetsConsumer: false, listCacheTtlMs: 0 });
  rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'coalescing-test', defaultTimeoutMs: 20_000, busPrefix });
});
afterAll(async () => {
  await rpc?.close();
  await app?.close();
  await db?.drop();
});

/** Queries of the screener's connections now waiting on a lock (any client but `except`). */
async function waiting(observer: pg.Client, except: number): Promise<string[]> {
  const rows = await observer.query<{ query: string }>(
    `select query from pg_stat_activity where datname = $1 and pid <> $2 and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
    [db.name, except],
  );
  return rows.rows.map((r) => r.query);
}

describe('identical concurrent screener requests', () => {
  it('send one query to Postgres, and every caller gets its answer', async () => {
    const locker = new pg.Client({ connectionString: testPostgresUrl(db.name) });
    const observer = new pg.Client({ connectionString: testPostgresUrl(db.name) });
    await locker.connect();
    await observer.connect();
    try {
      const lockerPid = (await locker.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      await locker.query('begin');
      await locker.query('lock table shares in access exclusive mode');

      const query = { sort: 'market_cap', direction: 'desc', per_page: 5 };
      const answers = Promise.all(Array.from({ length: IDENTICAL }, () => rpc.request<ListSharesReply>(Subjects.screener.sharesList, query)));
      // Sent after the identical ones on the same connection, so the service has taken them all by the
      // time this one (another key: it has a search, so its SQL differs) waits in Postgres.
      const marker = rpc.request<ListSharesReply>(Subjects.screener.sharesList, { ...query, search: 'no such share qq' });
      await eventually(() => waiting(observer, lockerPid), (q) => q.some((s) => s.includes('search_text like')), 'the marker query to wait');
      // Let any query still on its way to Postgres arrive, then count the identical ones.
      let seen: string[] = [];
      for (let i = 0; i < 10; i++) {
        seen = (await waiting(observer, lockerPid)).filter((s) => !s.includes('search_text like'));
        await new Promise((r) => setTimeout(r, 30));
      }
      expect(seen).toHaveLength(1);

      await locker.query('commit');
      const replies = await answers;
      expect(replies).toHaveLength(IDENTICAL);
      expect(replies[0]!.data.length).toBeGreaterThan(0);
      for (const r of replies) expect(r).toEqual(replies[0]);
      expect((await marker).data).toEqual([]);
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
      await observer.end();
    }
  });
});
