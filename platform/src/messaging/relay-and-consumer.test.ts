import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { type Db, openDatabase } from '../db/database.js';
import { appendToStream } from '../event-store/event-store.js';
import { eventStoreMigration } from '../event-store/event-store.migration.js';
import { createLogger } from '../logging/logger.js';
import { Migration } from '../db/database.js';
import { createTestDatabase, testNatsUrl, uniqueName } from '../testing/test-env.js';
import { type Bus, connectBus, ensureEventStream } from './bus.js';
import { deadLetterMigration } from './dead-letter.migration.js';
import { DurableConsumer } from './durable-consumer.js';
import { EventRelay } from './event-relay.js';
import { ServiceResources } from '../lifecycle/service-resources.js';
import { busSubject } from './bus-prefix.js';

class CreateCounter extends Migration {
  override up() {
    this.addSql('create table applied (event_id uuid not null, amount int not null)');
  }
}

const logger = createLogger('test', 'silent');

describe('relay and durable consumer (contract)', () => {
  let db: Db;
  let bus: Bus;
  let stream: string;
  let drop: () => Promise<void>;
  const prefix = `${uniqueName('rc')}.`;

  beforeAll(async () => {
    const t = await createTestDatabase('relay');
    drop = t.drop;
    db = await openDatabase({
      url: t.url,
      migrations: [eventStoreMigration, deadLetterMigration, { name: '0001-applied', class: CreateCounter }],
    });
    bus = await connectBus({ natsUrl: testNatsUrl(), name: 'relay-test', prefix });
    stream = await ensureEventStream(bus, 'market');
  });
  afterAll(async () => {
    await bus?.jsm.streams.delete(stream).catch(() => undefined);
    await bus?.close();
    await db?.close();
    await drop?.();
  });

  const relay = () =>
    new EventRelay({ db, bus, name: 'market-relay', logger, subjectFor: (e) => `market.events.${e.type}` });

  const record = (amount: number) =>
    db.transaction((tx) => appendToStream(tx, `asset-${randomUUID()}`, [{ type: 'RatesUpdated', data: { amount } }]));

  const streamMessages = async () => (await bus.jsm.streams.info(stream)).state.messages;

  it('publishes stored events once and deduplicates a republish after a lost checkpoint', async () => {
    await record(1);
    await record(2);
    expect(await relay().runOnce()).toBe(2);
    expect(await streamMessages()).toBe(2);
    expect(await relay().runOnce()).toBe(0);

    // Lose the checkpoint (as if the relay died after publishing, before saving it): everything is re-sent.
    await db.query('delete from es_checkpoints');
    expect(await relay().runOnce()).toBe(2);
    expect(await streamMessages()).toBe(2);
  });

  it('wakes on commit (LISTEN es_events) when running continuously', async () => {
    // A poll interval far beyond the wait: only the commit notification can bring the event out in time.
    let idle!: () => void;
    const firstIdle = new Promise<void>((r) => (idle = r));
    const r = new EventRelay({
      db,
      bus,
      name: 'market-relay',
      logger,
      subjectFor: (e) => `market.events.${e.type}`,
      pollMs: 10 * 60_000,
      onIdle: () => idle(),
    });
    await r.start();
    try {
      // Record only once the relay has drained and sleeps, so its first pass cannot pick the event up.
      await firstIdle;
      const before = await streamMessages();
      await record(3);
      await expect.poll(streamMessages, { timeout: 15_000, interval: 50 }).toBe(before + 1);
    } finally {
      await r.stop();
    }
  });

  const consumer = (durable: string, extra: Partial<ConstructorParameters<typeof DurableConsumer>[0]> = {}) =>
    new DurableConsumer({
      db,
      bus,
      stream,
      durableName: durable,
      filterSubject: 'market.events.RatesUpdated',
      logger,
      ackWaitMs: 1_000,
      handle: async (event, tx) => {
        await tx.query('insert into applied (event_id, amount) values ($1, $2)', [event.id, (event.data as { amount: number }).amount]);
      },
      ...extra,
    });

  const appliedCount = async () => Number((await db.query<{ n: string }>('select count(*)::text as n from applied'))[0]!.n);

  it('applies each event once even when the same event is delivered twice', async () => {
    await db.query('delete from applied');
    const c = consumer(`test__dup_${randomUUID().slice(0, 8)}`);
    await c.start();
    try {
      await expect.poll(appliedCount, { timeout: 20_000 }).toBe(3);
      // Publish an already-delivered event again under a new msgID (as after the duplicate window).
      const [one] = await db.query<{ event_id: string; data: unknown }>(`select event_id, data from es_events order by global_position limit 1`);
      const dup = { id: one!.event_id, type: 'RatesUpdated', streamName: 's', streamPosition: 1, recordedAt: new Date().toISOString(), data: one!.data, metadata: {} };
      await bus.js.publish(`${prefix}market.events.RatesUpdated`, JSON.stringify(dup), { msgID: randomUUID() });
      await record(4);
      await relay().runOnce();
      await expect.poll(appliedCount, { timeout: 20_000 }).toBe(4);
      const perEvent = await db.query<{ n: number }>('select count(*)::int as n from applied group by event_id having count(*) > 1');
      expect(perEvent).toEqual([]);
    } finally {
      await c.stop();
    }
  });

  it('does not apply a message twice when the consumer dies between commit and ack', async () => {
    await db.query('delete from applied');
    const durable = `test__crash_${randomUUID().slice(0, 8)}`;
    let committed = 0;
    // First instance, on its own connection: commits the effect, then "dies" (never acks, never naks) and
    // its connection goes away with it, as with a crashed process.
    const dyingBus = await connectBus({ natsUrl: testNatsUrl(), name: 'relay-test-dying', prefix });
    const dying = consumer(durable, {
      bus: dyingBus,
      afterCommit: () => {
        committed++;
        return new Promise<void>(() => undefined);
      },
    });
    await dying.start();
    await expect.poll(() => committed, { timeout: 20_000 }).toBeGreaterThan(0);
    const appliedBeforeCrash = await appliedCount();
    expect(appliedBeforeCrash).toBeGreaterThan(0);
    void dying.stop();
    await dyingBus.nc.close();

    // Second instance: receives the unacked messages again after ack_wait and applies only what is new.
    const total = Number((await db.query<{ n: string }>("select count(*)::text as n from es_events where type = 'RatesUpdated'"))[0]!.n);
    const healthy = consumer(durable);
    await healthy.start();
    try {
      await expect.poll(appliedCount, { timeout: 30_000, interval: 100 }).toBe(total);
      const dupes = await db.query('select event_id from applied group by event_id having count(*) > 1');
      expect(dupes).toEqual([]);
    } finally {
      await healthy.stop();
    }
  });

  it('publishes an event held back by a running transaction soon after that transaction ends, not at the next poll', async () => {
    let idles = 0;
    const r = new EventRelay({
      db,
      bus,
      name: 'market-relay',
      logger,
      subjectFor: (e) => `market.events.${e.type}`,
      pollMs: 10 * 60_000,
      onIdle: () => idles++,
    });
    // A transaction of this database with an xid older than the event: it holds the event back, and its
    // commit notifies nobody (it writes no event).
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select pg_current_xact_id()');
      await r.start();
      await expect.poll(() => idles, { timeout: 10_000 }).toBeGreaterThan(0);
      const before = await streamMessages();
      const idlesBefore = idles;
      await record(5);
      // The commit's notification woke the relay, which found the event behind the horizon.
      await expect.poll(() => idles, { timeout: 10_000 }).toBeGreaterThan(idlesBefore);
      expect(await streamMessages()).toBe(before);

      await blocker.query('commit');
      await expect.poll(streamMessages, { timeout: 15_000, interval: 50 }).toBe(before + 1);
    } finally {
      await blocker.query('rollback').catch(() => undefined);
      await blocker.end();
      await r.stop();
    }
  }, 60_000); // its waits add up to 35 s; the default 30 s timed it out once on a machine busy with other work
  it('re-creates a stream deleted on the server and publishes the held batch to it (the relay a service starts), though plain subscribers hear the subject', async () => {
    const res = new ServiceResources(logger);
    // The service's own connection: `connectBus` ensures the stream, `startRelay` knows to re-create it.
    const serviceBus = await res.connectBus({ natsUrl: testNatsUrl(), name: 'relay-recreate-test', prefix }, ['market']);
    await res.startRelay({ db, bus: serviceBus, name: 'market-relay', logger, subjectFor: (e) => `market.events.${e.type}`, pollMs: 100 });
    // A plain subscriber on the events, as the screener and the gateway have: with the stream gone a publish is
    // not refused ("no responders"), it goes unanswered until it times out.
    const follower = serviceBus.nc.subscribe(busSubject(prefix, 'market.events.>'));
    try {
      await bus.jsm.streams.delete(stream);
      await db.transaction((tx) => appendToStream(tx, `asset-${randomUUID()}`, [{ type: 'Recreated', data: { amount: 7 } }]));
      await expect
        .poll(
          async () => {
            const m = await bus.jsm.streams.getMessage(stream, { last_by_subj: busSubject(prefix, 'market.events.Recreated') }).catch(() => null);
            return m ? (m.json<{ data: { amount: number } }>()).data.amount : null;
          },
          { timeout: 15_000, interval: 100 },
        )
        .toBe(7);
    } finally {
      follower.unsubscribe();
      await res.stop();
    }
  });

  it('stops at once when stopped during a pass, not after its poll interval', async () => {
    let stopped: Promise<void> | undefined;
    const r = new EventRelay({
      db,
      bus,
      name: 'market-relay-stop',
      logger,
      pollMs: 10 * 60_000,
      // Called inside the pass, for each event it publishes: the stop arrives while the pass runs.
      subjectFor: (e) => {
        stopped ??= r.stop();
        return `market.events.${e.type}`;
      },
    });
    await record(4);
    await r.start();
    await expect.poll(() => stopped !== undefined, { timeout: 15_000 }).toBe(true);
    // With the relay asleep for its 10-minute poll after the pass, this would time the test out.
    await stopped;
  });
});
