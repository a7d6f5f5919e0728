/**
 * A user's inbox is read by id after the last one seen (the SSE stream's `Last-Event-ID`), so each user's
 * firings must become visible in id order: two transactions firing for the same user may not commit a higher
 * id while a lower one is still pending, or a reader that saw the higher one steps past the lower one for good.
 * Shown on real Postgres with the waiting seen in pg_blocking_pids, not by timing.
 */
import type { Db } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { blockedBy, holdOpen, useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { AlertsEvaluator } from '../src/evaluation/alerts-evaluator.js';
import { FEED_BUCKETS, feedBucketOf } from '../src/evaluation/feed-locks.js';
import { sweep } from '../src/jobs/alerts-jobs.js';
import { NotificationEventsService } from '../src/inbox/notification-events.service.js';
import { migrations } from '../src/migrations/index.js';

let db: Db;
const logger = createLogger('test', 'silent');
const now = new Date();
const evaluator = new AlertsEvaluator({ logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' });

useTestDatabase('alerts_feed_order', migrations, (d) => (db = d));

/** Price targets on one asset for each of `users`, already crossed by the asset's latest rate; their ids, in order. */
async function crossedTargets(assetId: number, users: readonly string[]): Promise<number[]> {
  await db.query(
    `insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at) values ('share', $1, $2, 'RUB', 111, 0, $3, $3)`,
    [assetId, `T${assetId}`, now],
  );
  const rows = await db.query<{ id: string }>(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value)
     select u, 2, 'asset', $2, 'share', '>=', 110, 110 from unnest($1::text[]) with ordinality as x(u, i) order by i returning id::text`,
    [users, assetId],
  );
  return rows.map((r) => Number(r.id));
}

const crossedTarget = async (user: string, assetId: number) => (await crossedTargets(assetId, [user]))[0]!;
const manyUsers = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);

const fire = (assetId: number) => (tx: Parameters<Parameters<Db['transaction']>[0]>[0]) =>
  evaluator.evaluate(tx, { assets: [{ type: 'share', id: assetId }] }, ['price-target'], `asset ${assetId}`);

describe('a user\'s firings become visible in id order', () => {
  it('holds a second transaction firing for the same user until the first, with the lower id, commits', async () => {
    const user = 'feed-same';
    const asset = 1;
    const inbox = new NotificationEventsService(db, () => now);
    const first = await crossedTarget(user, asset);
    const second = await crossedTarget(user, asset + 1);
    const a = await holdOpen(db, fire(asset));
    const b = db.transaction(fire(asset + 1));
    // The second evaluation fires another notification of the same user: it waits for the first's commit
    // instead of committing a later id while the earlier one is pending.
    expect(await blockedBy(db, a.pid, b)).toBe(true);
    expect((await inbox.list(user, { after_id: 0, per_page: 10, page: 1, locale: 'en' })).data).toEqual([]);
    a.release();
    const [ra, rb] = await Promise.all([a.done, b]);
    expect([ra.fired, rb.fired]).toEqual([1, 1]);
    const seen = (await inbox.list(user, { after_id: 0, per_page: 10, page: 1, locale: 'en' })).data;
    expect(seen.map((e) => e.notification_id)).toEqual([first, second]);
    expect(seen[0]!.id).toBeLessThan(seen[1]!.id);
  });

  it('does not hold transactions firing for users of other feed buckets', async () => {
    const [a1, b1] = ['feed-a', 'feed-b'];
    expect(feedBucketOf(a1)).not.toBe(feedBucketOf(b1));
    await crossedTarget(a1, 3);
    await crossedTarget(b1, 4);
    const a = await holdOpen(db, fire(3));
    // Committed while the other user's transaction is still open.
    const rb = await db.transaction(fire(4));
    expect(rb.fired).toBe(1);
    a.release();
    expect((await a.done).fired).toBe(1);
  });

  it('a sweep records its firings in chunks of their own, so it holds each feed lock only for its chunk', async () => {
    const users = 3_000;
    await crossedTargets(90, manyUsers('chunked', users));
    // No publisher (as from the command line): each committed chunk leaves its publication row.
    const r = await sweep(db, evaluator, undefined, 'price-target', 'sweep');
    expect(r.fired).toBe(users);
    const chunks = await db.query<{ n: number }>(
      `select cardinality(p.firing_ids) as n from firing_publications p where exists (select 1 from notification_firings f where f.id = p.firing_ids[1] and f.user_id like 'chunked-%')`,
    );
    expect(chunks.length).toBeGreaterThanOrEqual(users / 500);
    expect(chunks.reduce((a, c) => a + c.n, 0)).toBe(users);
    // A chunk is cut before a bucket would take it past 500 (a bucket holds ~12 of these users).
    for (const c of chunks) expect(c.n).toBeLessThanOrEqual(500);
    await db.query('delete from firing_publications');
  });

  it('lets one sweep fire for more users than the server has lock slots (a lock per feed bucket, not per user)', async () => {
    // 64 lock slots per connection by default, ~6,400 in all plus the shared memory's slack: a lock per user for
    // 40,000 users fails with "out of shared memory" here (seen), and the backstop sweep would fail on every run.
    const users = 40_000;
    await crossedTargets(100, manyUsers('sweep', users));
    const locks = await db.transaction(async (tx) => {
      const r = await evaluator.evaluate(tx, { all: true }, ['price-target'], 'sweep');
      expect(r.fired).toBe(users);
      const [{ n } = { n: '0' }] = await tx.query<{ n: string }>("select count(*)::text as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()");
      return Number(n);
    });
    expect(locks).toBe(FEED_BUCKETS);
    const [{ n } = { n: '0' }] = await db.query<{ n: string }>(`select count(*)::text as n from notification_firings where user_id like 'sweep-%'`);
    expect(Number(n)).toBe(users);
  });
});
