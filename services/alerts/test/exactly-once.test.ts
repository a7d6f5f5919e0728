/**
 * Exactly once, enforced by the database, on real Postgres and NATS: two evaluations (a sweep and the
 * consumer, or two instances) that read the same state before either commits fire each step once. The second
 * one is held on the notification's row lock until the first commits (seen in pg_blocking_pids, not by
 * timing), then finds the row changed and fires nothing. The firing key is unique besides. A batch recorded
 * in chunks that crashes between them fires only the rest when redelivered, and every NotificationFired is
 * on ALERTS_EVENTS once however often it is published.
 */
import { randomUUID } from 'node:crypto';
import { type MarketEvent, MarketEventTypes } from '@invest/contracts';
import { type Db, openDatabase } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { type Bus, connectBus, ensureEventStream, streamNameOf } from '@invest/platform/messaging/bus';
import { busSubject } from '@invest/platform/messaging/bus-prefix';
import { blockedBy, createTestDatabase, holdOpen, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FiringPublisher } from '../src/delivery/firing-publisher.js';
import { AlertsEvaluator } from '../src/evaluation/alerts-evaluator.js';
import { feedBucketOf } from '../src/evaluation/feed-locks.js';
import { migrations } from '../src/migrations/index.js';
import { handleMarketEvent } from '../src/rates/rates-updated.consumer.js';

let db: Db;
let bus: Bus;
let publisher: FiringPublisher;
let drop: () => Promise<void>;
const logger = createLogger('test', 'silent');
const now = new Date();
const evaluator = new AlertsEvaluator({ logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' });

beforeAll(async () => {
  const t = await createTestDatabase('alerts_once');
  drop = t.drop;
  db = await openDatabase({ url: t.url, migrations, logger });
  bus = await connectBus({ natsUrl: testNatsUrl(), name: 'alerts-once', prefix: `${uniqueName('alerts_once')}.` });
  await ensureEventStream(bus, 'alerts');
  // The backstop runs only when a test asks (graceMs 0: every publication left is due).
  publisher = new FiringPublisher({ db, bus, logger, graceMs: 0 });
});
afterAll(async () => {
  await publisher?.stop();
  await bus?.jsm.streams.delete(streamNameOf(bus, 'alerts')).catch(() => undefined);
  await bus?.close();
  await db?.close();
  await drop?.();
});

/** NotificationFired messages kept by ALERTS_EVENTS (JetStream drops a repeated msgID). */
async function storedEvents(): Promise<number> {
  return (await bus.jsm.streams.info(streamNameOf(bus, 'alerts'))).state.messages;
}

async function seed(assetId: number, typeId: 2 | 8, value: number, rate: number, change: number, userId = 'u'): Promise<number> {
  await db.query(
    `insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at) values ('share', $1, $2, 'RUB', $3, $4, $5, $5)
     on conflict (asset_type, asset_id) do update set rate = excluded.rate, change_24h = excluded.change_24h`,
    [assetId, `T${assetId}`, rate, change, now],
  );
  const [row] = await db.query<{ id: string }>(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes)
     values ($5, $1, 'asset', $2, 'share', '>=', $3, $3, $4) returning id::text`,
    [typeId, assetId, value, typeId === 8 ? 60 : null, userId],
  );
  return Number(row!.id);
}

/**
 * Evaluates in a transaction held open, runs `second` meanwhile, and commits the first only once `second`
 * is blocked by it (pg_blocking_pids names the first's backend): no timeout decides the order.
 */
async function race(second: (db: Db) => Promise<unknown>) {
  const first = await holdOpen(db, (tx) => evaluator.evaluate(tx, { all: true }, ['price-target', 'price-change'], 'first'));
  const b = second(db);
  // The second evaluation has read the same state and now waits for the row the first one changed.
  expect(await blockedBy(db, first.pid, b)).toBe(true);
  first.release();
  return Promise.all([first.done, b]);
}

const sweep = (d: Db) => d.transaction((tx) => evaluator.evaluate(tx, { all: true }, ['price-target', 'price-change'], 'second'));

describe('a step fires once however many evaluations race', () => {
  it('price-change: two evaluations reading the same threshold fire it once, and the threshold grows once', async () => {
    const id = await seed(1, 8, 5, 100, 6);
    const [a, b] = await race(sweep);
    expect([a, b].map((r) => (r as { fired: number }).fired).sort()).toEqual([0, 1]);
    expect(await db.query('select step_key from notification_firings where notification_id = $1', [id])).toEqual([{ step_key: 'c0:t5' }]);
    const [n] = await db.query<{ initial_value: string }>('select initial_value from notifications where id = $1', [id]);
    expect(n!.initial_value).toBe('10');
    // One NotificationFired to publish, recorded with the firing.
    const [pending] = await db.query<{ n: string }>(
      'select count(*)::text as n from firing_publications p join notification_firings f on f.id = any(p.firing_ids) where f.notification_id = $1',
      [id],
    );
    expect(pending!.n).toBe('1');
  });

  it('price-target: two evaluations fire it once and leave it inactive', async () => {
    const id = await seed(2, 2, 110, 111, 0);
    await race(sweep);
    expect(await db.query('select step_key from notification_firings where notification_id = $1', [id])).toEqual([{ step_key: 'c0' }]);
    const [n] = await db.query<{ is_active: boolean }>('select is_active from notifications where id = $1', [id]);
    expect(n!.is_active).toBe(false);
  });

  it('refuses a second firing of a step at the database (unique key) even when the row was changed back', async () => {
    const id = await seed(3, 8, 5, 100, 6);
    await sweep(db);
    // As if the state had been rewound (a bug, a restore): the step key is already used, so nothing is recorded twice.
    await db.query('update notifications set initial_value = value, last_triggered_at = null where id = $1', [id]);
    await expect(sweep(db)).rejects.toThrow(/firing key already used/);
    expect(await db.query('select step_key from notification_firings where notification_id = $1', [id])).toEqual([{ step_key: 'c0:t5' }]);
  });
});

/** A RatesUpdated as the screener publishes it (its rates observed at `asOf`). */
function ratesEvent(rates: { assetId: number; rate: number; change: number }[], asOf = now): MarketEvent {
  return {
    id: randomUUID(),
    type: MarketEventTypes.RatesUpdated,
    streamName: 'rates-share',
    streamPosition: 1,
    recordedAt: now.toISOString(),
    data: {
      version: 1,
      source: 'test',
      rates: rates.map((r) => ({ assetType: 'share', assetId: r.assetId, ticker: `T${r.assetId}`, currency: 'RUB', rate: r.rate, priceChangePercentage24h: r.change, asOf: asOf.toISOString() })),
    },
    metadata: {},
  } as MarketEvent;
}

describe('firings recorded in chunks and published after commit', () => {
  const crashAfterFirstChunk = (via: AlertsEvaluator, assets: number[], firingWriters = 1) => async () => {
    // A user each, of distinct feed buckets: a bucket's firings share a chunk (chunkByFeed).
    expect(new Set(assets.map((a) => feedBucketOf(`u${a}`))).size).toBe(assets.length);
    const ids = await Promise.all(assets.map((a) => seed(a, 8, 5, 100, 0, `u${a}`)));
    if (via.index.loaded) await via.index.refresh(db);
    const eventsBefore = await storedEvents();
    const event = ratesEvent(assets.map((assetId) => ({ assetId, rate: 106, change: 6 })));
    // One firing per chunk; the second chunk to write fails before it commits (the process died there).
    // Told apart by what it writes: the indexed path reads its candidates in a transaction of its own.
    let chunks = 0;
    const crashing = {
      transaction: <T>(fn: Parameters<Db['transaction']>[0]) =>
        db.transaction((tx) =>
          fn({
            ...tx,
            query: (sql: string, params?: readonly unknown[]) =>
              sql.includes('update notifications n set') && ++chunks === 2 ? Promise.reject(new Error('crashed between chunks')) : tx.query(sql, params),
          } as typeof tx),
        ) as Promise<T>,
    };
    await expect(db.transaction((tx) => handleMarketEvent(event, tx, { db: crashing, evaluator: via, publisher, logger, firingChunk: 1, firingWriters }))).rejects.toThrow(/crashed/);
    const fired = await db.query<{ notification_id: string }>('select notification_id::text from notification_firings where notification_id = any($1::bigint[])', [ids]);
    // One writer stops at the failed chunk; with two, the other may have committed the third meanwhile.
    if (firingWriters === 1) expect(fired).toHaveLength(1);
    else expect([1, 2]).toContain(fired.length);
    // The inbox transaction rolled back with the rates; the event comes again.
    await db.transaction((tx) => handleMarketEvent(event, tx, { db, evaluator: via, publisher, logger, firingChunk: 1, firingWriters }));
    for (const id of ids) expect(await db.query('select step_key from notification_firings where notification_id = $1', [id])).toEqual([{ step_key: 'c0:t5' }]);
    // Published after each chunk's commit; nothing left for the backstop.
    expect(await storedEvents()).toBe(eventsBefore + 3);
    expect(await db.query('select p.id from firing_publications p join notification_firings f on f.id = any(p.firing_ids) where f.notification_id = any($1::bigint[])', [ids])).toEqual([]);
  };

  it('a crash after the first chunk: the redelivered event fires only the rest, each step once, each NotificationFired once', crashAfterFirstChunk(evaluator, [10, 11, 12]));

  it('the same through the candidate index (candidates read while the rates are checked, stored after the firings)', async () => {
    const indexed = new AlertsEvaluator({ logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' });
    await indexed.loadIndex(db);
    await crashAfterFirstChunk(indexed, [13, 14, 15])();
    expect(indexed.lastTimings.indexed).toBeGreaterThan(0);
  });

  it('the same with two chunks written at once', crashAfterFirstChunk(evaluator, [16, 17, 18], 2));

  it("keeps a user's firings in one chunk (concurrent chunks never wait for each other's feed locks)", async () => {
    const mine = (await Promise.all([30, 31, 32].map((a) => seed(a, 8, 5, 100, 0, 'one-user')))).sort((a, b) => a - b);
    const other = await seed(33, 8, 5, 100, 0, 'another-user');
    const chunks: number[][] = [];
    const counting = {
      transaction: <T>(fn: Parameters<Db['transaction']>[0]) =>
        db.transaction((tx) =>
          fn({
            ...tx,
            query: (sql: string, params?: readonly unknown[]) => {
              if (sql.includes('update notifications n set')) chunks.push((params![0] as string).split('\x1e').map((record) => Number(record.split('\x1f')[0])).sort((a, b) => a - b));
              return tx.query(sql, params);
            },
          } as typeof tx),
        ) as Promise<T>,
    };
    const event = ratesEvent([30, 31, 32, 33].map((assetId) => ({ assetId, rate: 106, change: 6 })));
    await db.transaction((tx) => handleMarketEvent(event, tx, { db: counting, evaluator, publisher, logger, firingChunk: 1, firingWriters: 2 }));
    // With chunks of one, each bucket is a chunk: the one user's three firings are one.
    expect(chunks.find((c) => c.includes(mine[0]!))).toEqual(mine);
    expect(chunks.flat().sort((a, b) => a - b)).toEqual([...mine, other]);
    expect(chunks).toHaveLength(feedBucketOf('one-user') === feedBucketOf('another-user') ? 1 : 2);
  });

  it('a publication left behind is published by the backstop, and a second publish of it is dropped by JetStream', async () => {
    const id = await seed(20, 2, 150, 151, 0);
    // What the earlier tests recorded without publishing goes first.
    await publisher.runBackstop();
    const eventsBefore = await storedEvents();
    // Committed, then the process stopped before publishing.
    const r = await db.transaction((tx) => evaluator.evaluate(tx, { assets: [{ type: 'share', id: 20 }] }, ['price-target'], 'test'));
    expect(r.fired).toBe(1);
    expect(await publisher.runBackstop()).toBe(1);
    expect(await storedEvents()).toBe(eventsBefore + 1);
    expect(await db.query('select id from firing_publications')).toEqual([]);
    // The same firing published again (a slow direct publish racing the backstop): still one message.
    await publisher.publish(r.committed[0]!);
    expect(await storedEvents()).toBe(eventsBefore + 1);
    // The stream's last message is this firing's (the repeat was dropped, not stored after it).
    const msg = await bus.jsm.streams.getMessage(streamNameOf(bus, 'alerts'), { last_by_subj: busSubject(bus.prefix, 'alerts.events.NotificationFired') });
    expect(msg!.json<{ id: string; data: { firingId: number; notificationId: number } }>().data).toMatchObject({ firingId: r.firingIds[0], notificationId: id });
  });
});

describe('a batch naming an asset twice', () => {
  it('stores and evaluates its latest rate (a statement writes a row once: it had failed on every delivery)', async () => {
    const target = await seed(40, 2, 150, 100, 0);
    const event = ratesEvent([
      { assetId: 40, rate: 120, change: 0 },
      { assetId: 41, rate: 100, change: 0 },
      { assetId: 40, rate: 160, change: 0 },
    ]);
    // The same time for both (a tie): the later in the batch is the latest.
    await db.transaction((tx) => handleMarketEvent(event, tx, { db, evaluator, publisher, logger }));
    expect(await db.query("select rate from latest_rates where asset_type = 'share' and asset_id = 40")).toEqual([{ rate: '160' }]);
    expect(await db.query('select count(*)::int as n from notification_firings where notification_id = $1', [target])).toEqual([{ n: 1 }]);
  });
});

describe('two instances given batches of one asset type at once', () => {
  it('evaluate them one after the other: an older batch waits for the newer one, then neither fires on nor stores its older rate', async () => {
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    // A price target the older batch's rate crosses and the newer one's does not.
    const target = await seed(50, 2, 105, 100, 0);
    await db.query("update latest_rates set as_of = $1 where asset_type = 'share' and asset_id = 50", [minutesAgo(3)]);
    const instances = [1, 2].map(() => new AlertsEvaluator({ logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' }));
    for (const instance of instances) await instance.loadIndex(db);
    const newer = ratesEvent([{ assetId: 50, rate: 101, change: 0 }], minutesAgo(1));
    const older = ratesEvent([{ assetId: 50, rate: 106, change: 0 }], minutesAgo(2));
    // The first instance has handled the newer batch; its inbox transaction (with the rates) has not committed.
    const first = await holdOpen(db, (tx) => handleMarketEvent(newer, tx, { db, evaluator: instances[0]!, publisher, logger }));
    const second = db.transaction((tx) => handleMarketEvent(older, tx, { db, evaluator: instances[1]!, publisher, logger }));
    expect(await blockedBy(db, first.pid, second)).toBe(true);
    first.release();
    await Promise.all([first.done, second]);
    expect(await db.query('select count(*)::int as n from notification_firings where notification_id = $1', [target])).toEqual([{ n: 0 }]);
    expect(await db.query("select rate from latest_rates where asset_type = 'share' and asset_id = 50")).toEqual([{ rate: '101' }]);
    expect(instances[1]!.index.loaded).toBe(true);
  });
});

describe('a batch Postgres cannot store', () => {
  it('fires nothing: the check before the firings reads every column the upsert writes, so it fails first', async () => {
    const target = await seed(60, 2, 105, 100, 0);
    const indexed = new AlertsEvaluator({ logger, clock: () => now, maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' });
    await indexed.loadIndex(db);
    // A rate that crosses the target, with a ticker holding a NUL, which Postgres's text refuses.
    const event = ratesEvent([{ assetId: 60, rate: 106, change: 0 }]);
    if (event.type !== MarketEventTypes.RatesUpdated) throw new Error('not a rates event');
    event.data.rates[0]!.ticker = 'T\u0000';
    await expect(db.transaction((tx) => handleMarketEvent(event, tx, { db, evaluator: indexed, publisher, logger }))).rejects.toThrow(/Unicode escape/);
    expect(await db.query('select count(*)::int as n from notification_firings where notification_id = $1', [target])).toEqual([{ n: 0 }]);
    expect(await db.query("select rate from latest_rates where asset_type = 'share' and asset_id = 60")).toEqual([{ rate: '100' }]);
  });
});
