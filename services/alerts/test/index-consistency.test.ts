/**
 * The candidate index stays as current as the database where the event path relies on it: its group members
 * (taken from the index since performance pass 5) after memberships changed since the load and after a
 * `refresh` that failed half way, and a sweep's firings learnt by the index right after each chunk's commit,
 * never over a change an event's `refresh` applied in between. The event path (`planEvent`) is compared with
 * a full scan, as in candidate-index.test.ts. (Written by a review of pass 5; the last two failed before their
 * fixes.)
 */
import type { RateChange } from '@invest/contracts';
import type { Db, SqlClient } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { useTestDatabase } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { AlertsEvaluator, type EvaluationPlan } from '../src/evaluation/alerts-evaluator.js';
import { recordInChunks } from '../src/evaluation/chunked-recording.js';
import { feedBucketOf } from '../src/evaluation/feed-locks.js';
import { removeMember, targetDeleted } from '../src/membership/membership.repository.js';
import { migrations } from '../src/migrations/index.js';
import { pendingRates, upsertRates } from '../src/rates/latest-rates.repository.js';
import { fullScan } from './full-scan.js';

let db: Db;
const logger = createLogger('test', 'silent');
const now = new Date('2026-03-10T12:00:00Z');
const options = { logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' };

useTestDatabase('alerts_index_consistency', migrations, (opened) => (db = opened));

type Rate = { type?: string; id: number; rate?: number; change: number; asOf?: Date };
const changeOf = (r: Rate): RateChange =>
  ({ assetType: r.type ?? 'share', assetId: r.id, ticker: `T${r.id}`, currency: 'RUB', rate: r.rate ?? 100, priceChangePercentage24h: r.change, asOf: (r.asOf ?? now).toISOString() }) as RateChange;

/** Stores rates (not evaluated). */
async function store(rates: Rate[]): Promise<void> {
  await upsertRates(db, rates.map(changeOf), now).changed;
}

/** Each firing with the assets it lists, for the event path of `indexed` and for a full scan. */
async function compare(indexed: AlertsEvaluator, rates: Rate[]): Promise<{ event: string[]; scan: string[] }> {
  const batch = rates.map(changeOf);
  const listed = (plan: EvaluationPlan) => plan.firings.map((f) => `${f.n.id}: ${f.d.crossed.map((c) => `${c.assetType}:${c.assetId}`).join(' ')}`).sort();
  const eventPlan = await db.transaction((tx) => {
    const rates = pendingRates(tx, batch, now);
    return indexed.planEvent(db, tx, rates.batch, rates.changed, 'test', rates.store);
  });
  const changed = await db.transaction((tx) => upsertRates(tx, batch, now).changed);
  return { event: listed(eventPlan), scan: await fullScan(db, changed, { now, maxRateAgeMs: options.maxRateAgeMs, marketTz: options.marketTz }, (r) => `${r.assetType}:${r.assetId}`) };
}

async function notification(n: { type: 2 | 8; target: 'asset' | 'portfolio' | 'watchlist'; id: number; value: number; user?: string }): Promise<number> {
  const [row] = await db.query<{ id: string }>(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes)
     values ($1, $2, $3, $4, $5, '>=', $6, $6, $7) returning id::text`,
    [n.user ?? 'u', n.type, n.target, n.id, n.target === 'asset' ? 'share' : null, n.value, n.type === 8 ? 60 : null],
  );
  return Number(row!.id);
}

const member = (target: 'portfolio' | 'watchlist', id: number, asset: { type?: string; id: number }) =>
  db.query('insert into memberships values ($1, $2, $3, $4, $5)', [target, id, asset.type ?? 'share', asset.id, 'u']);

describe('group members from the candidate index', () => {
  it('lists what the full scan lists after memberships changed since the load: removed, added, watchlist, deleted target, stale / missing / other-type members', async () => {
    const indexed = new AlertsEvaluator(options);
    await store([
      { id: 201, change: 1 },
      { id: 202, change: 1 },
      { id: 203, change: 1 },
      { id: 204, change: 1 },
      { id: 205, change: 1 },
      { id: 206, change: 1 },
      // Outside the batches below: a fresh bond with the same id as a share, a stale share.
      { type: 'bond', id: 201, change: 9 },
      { id: 207, change: 9, asOf: new Date(now.getTime() - 2 * 3_600_000) },
    ]);
    await notification({ type: 8, target: 'portfolio', id: 950, value: 2 });
    await notification({ type: 8, target: 'watchlist', id: 950, value: 2 });
    await notification({ type: 8, target: 'portfolio', id: 951, value: 2 });
    for (const a of [{ id: 201 }, { id: 202 }, { type: 'bond', id: 201 }, { id: 207 }, { id: 208 }]) await member('portfolio', 950, a);
    await member('watchlist', 950, { id: 203 });
    await member('portfolio', 951, { id: 204 });
    await indexed.loadIndex(db);

    await db.transaction((tx) => removeMember(tx, { type: 'portfolio', id: 950 }, { type: 'share', id: 202 } as never));
    await member('portfolio', 950, { id: 205 });
    await member('watchlist', 950, { id: 206 });
    await db.transaction((tx) => targetDeleted(tx, { type: 'portfolio', id: 951 }, now));

    const r = await compare(indexed, [201, 202, 203, 204, 205, 206].map((id) => ({ id, change: 5 })));
    expect(r.scan.length).toBe(2);
    expect(r.event).toEqual(r.scan);
  });

  it('a refresh that failed half way leaves the index with a membership removed since (and without one added): the event lists what the portfolio no longer holds', async () => {
    const indexed = new AlertsEvaluator(options);
    await store([
      { id: 211, change: 1 },
      { id: 212, change: 9 },
      { id: 213, change: 1 },
      { id: 214, change: 9 },
    ]);
    const removed = await notification({ type: 8, target: 'portfolio', id: 960, value: 2 });
    const added = await notification({ type: 8, target: 'portfolio', id: 961, value: 2 });
    await member('portfolio', 960, { id: 211 });
    await member('portfolio', 960, { id: 212 });
    await member('portfolio', 961, { id: 213 });
    await indexed.loadIndex(db);

    await db.transaction((tx) => removeMember(tx, { type: 'portfolio', id: 960 }, { type: 'share', id: 212 } as never));
    await member('portfolio', 961, { id: 214 });
    // A transient failure of the refresh's membership read (a connection lost, a statement cancelled): as it
    // would happen inside planEvent's reading transaction.
    const failing: SqlClient = {
      query: (sql, params) => (sql.includes('from memberships m') ? Promise.reject(new Error('connection lost')) : db.query(sql, params)),
    };
    await expect(indexed.index.refresh(failing)).rejects.toThrow('connection lost');

    // The next events refresh normally.
    const r = await compare(indexed, [
      { id: 211, change: 3 },
      { id: 213, change: 3 },
    ]);
    // The full scan: 960 holds 211 only, 961 holds 213 and 214.
    expect(r.scan).toEqual([`${removed}: share:211`, `${added}: share:214 share:213`].sort());
    // Before the fix (the changes were marked applied before their reads) the event listed 212 for 960 (removed
    // from it) and left 214 out of 961, for good.
    expect(r.event).toEqual(r.scan);
  });
});

describe('firings learnt by the index', () => {
  it("are learnt right after each chunk's commit: a switch on an event's refresh applied between a sweep's chunks stays", async () => {
    const ev = new AlertsEvaluator(options);
    await ev.loadTypes(db);
    // Two users in different feed buckets: chunks of one firing each.
    expect(feedBucketOf('ua')).not.toBe(feedBucketOf('ub'));
    await store([
      { id: 221, rate: 160, change: 0 },
      { id: 222, rate: 160, change: 0 },
    ]);
    const a = await notification({ type: 2, target: 'asset', id: 221, value: 150, user: 'ua' });
    const b = await notification({ type: 2, target: 'asset', id: 222, value: 150, user: 'ub' });
    await ev.loadIndex(db);

    // A sweep fires both, in two chunks.
    const plan = await db.transaction((tx) => ev.plan(tx, { assets: [{ type: 'share', id: 221 }, { type: 'share', id: 222 }] }, ['price-target'], 'sweep'));
    expect(plan.firings.map((f) => f.n.id).sort()).toEqual([a, b].sort());
    let transactions = 0;
    let reenabled = 0;
    const sweepDb = {
      transaction: async <T>(fn: Parameters<Db['transaction']>[0]): Promise<T> => {
        if (++transactions === 2) {
          // Between the chunks: the user switches the notification that just fired on again (the service's
          // switch), and the rates consumer's next event refreshes the index (planEvent on another asset).
          const [row] = await db.query<{ id: string }>('select id::text from notifications where id = any($1::bigint[]) and not is_active', [[a, b]]);
          reenabled = Number(row!.id);
          await db.query('update notifications set is_active = not is_active, cycle = cycle + 1 where id = $1', [reenabled]);
          await compare(ev, [{ id: 229, change: 0 }]);
        }
        return db.transaction(fn) as Promise<T>;
      },
    };
    const fired = await recordInChunks(sweepDb, ev, plan, { size: 1, writers: 1, onCommitted: () => undefined });
    expect(fired).toBe(2);
    expect(reenabled).toBeGreaterThan(0);
    const [row] = await db.query<{ is_active: boolean }>('select is_active from notifications where id = $1', [reenabled]);
    expect(row!.is_active).toBe(true);

    // The next rate of its asset: the full scan fires it again; the event path must too.
    const asset = reenabled === a ? 221 : 222;
    const r = await compare(ev, [{ id: asset, rate: 161, change: 0 }]);
    expect(r.scan).toEqual([`${reenabled}: share:${asset}`]);
    // With noteFired deferred to the last chunk, the index dropped it after the refresh, and the change that
    // re-enabled it was not read again.
    expect(r.event).toEqual(r.scan);
  });
});
