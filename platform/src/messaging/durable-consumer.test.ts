/**
 * DurableConsumer on the real NATS: it keeps consuming through what a long-running service meets, keeps a
 * slow handler's messages alive, dead-letters what it cannot apply, and leaves events it does not
 * understand for a later reader. Pulls, heartbeats and ack waits are shortened through the options.
 */
import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy } from '@nats-io/jetstream';
import { Writable } from 'node:stream';
import { type BusEvent, decodeEvent, type EventOf } from '@invest/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Db, Migration } from '../db/database.js';
import { eventStoreMigration } from '../event-store/event-store.migration.js';
import { createLogger } from '../logging/logger.js';
import { PrivateNats, skipWithoutNatsServer } from '../testing/private-nats.js';
import { testNatsUrl, uniqueName } from '../testing/test-env.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { type Bus, connectBus, ensureEventStream, streamNameOf } from './bus.js';
import { busSubject } from './bus-prefix.js';
import { deadLetterMigration } from './dead-letter.migration.js';
import { DurableConsumer, type DurableConsumerOptions } from './durable-consumer.js';

class CreateApplied extends Migration {
  override up() {
    this.addSql('create table applied (event_id uuid not null, amount int not null)');
  }
}

const silent = createLogger('durable-consumer-test', 'silent');

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('durable-consumer-test', 'debug', sink), lines };
}

/** Version 1 of the test event carries one amount; version 2 (a breaking change) a list of them. */
const countedV1 = z.object({ version: z.literal(1), amount: z.number().int() });
const countedV2 = z.object({ version: z.literal(2), amounts: z.array(z.number().int()) });
const readsV1 = { Counted: countedV1 };
const readsV1AndV2 = { Counted: z.discriminatedUnion('version', [countedV1, countedV2]) };
type CountedEvent = EventOf<typeof readsV1AndV2>;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const fastPulls = { pullExpiresMs: 1_000, idleHeartbeatMs: 500, reconnectBaseMs: 100, replayPollMs: 60_000 } as const;

let db: Db;
useTestDatabase('durable', [eventStoreMigration, deadLetterMigration, { name: '0001-applied', class: CreateApplied }], (opened) => (db = opened));

const appliedAmounts = async (ids: string[]) =>
  (await db.query<{ amount: number }>('select amount from applied where event_id = any($1::uuid[]) order by amount', [ids])).map((r) => r.amount);
const inInbox = async (consumer: string, id: string) =>
  (await db.query('select 1 from es_inbox where consumer = $1 and message_id = $2', [consumer, id])).length > 0;
const insertApplied = (tx: { query: Db['query'] }, id: string, amount: number) =>
  tx.query('insert into applied (event_id, amount) values ($1, $2)', [id, amount]);

/** One test's own subject, event factory and consumer factory on a bus. */
function lane(bus: () => Bus, stream: () => string) {
  const key = randomUUID().slice(0, 8);
  const durableName = `test__${key}`;
  const subject = `market.events.Counted.${key}`;
  const publish = async (data: unknown, id: string = randomUUID()) => {
    const event: BusEvent = { id, type: 'Counted', streamName: `counted-${key}`, streamPosition: 1, recordedAt: new Date().toISOString(), data, metadata: {} };
    await bus().js.publish(busSubject(bus().prefix, subject), JSON.stringify(event), { msgID: randomUUID() });
    return id;
  };
  const consumer = <E extends BusEvent = BusEvent>(opts: Partial<DurableConsumerOptions<E>> & Pick<DurableConsumerOptions<E>, 'handle'>) =>
    new DurableConsumer<E>({ db, bus: bus(), stream: stream(), durableName, filterSubject: subject, logger: silent, ackWaitMs: 2_000, ...fastPulls, ...opts });
  const info = (c: DurableConsumer<never> | DurableConsumer<BusEvent> | DurableConsumer<CountedEvent>) => bus().jsm.consumers.info(stream(), c.consumerName);
  return { key, durableName, subject, publish, consumer, info };
}

const applyAmount = async (event: BusEvent, tx: { query: Db['query'] }): Promise<void> => {
  await insertApplied(tx, event.id, (event.data as { amount: number }).amount);
};

describe('DurableConsumer on the shared NATS', () => {
  let bus: Bus;
  let stream: string;
  const prefix = `${uniqueName('dc')}.`;
  beforeAll(async () => {
    bus = await connectBus({ natsUrl: testNatsUrl(), name: 'durable-consumer-test', prefix });
    stream = await ensureEventStream(bus, 'market');
  });
  afterAll(async () => {
    await bus?.jsm.streams.delete(streamNameOf(bus, 'market')).catch(() => undefined);
    await bus?.close();
  });
  const newLane = () => lane(() => bus, () => stream);

  it('keeps consuming after its durable consumer is deleted on the server', async () => {
    const l = newLane();
    const c = l.consumer({ handle: applyAmount });
    await c.start();
    try {
      const first = await l.publish({ version: 1, amount: 1 });
      await expect.poll(() => appliedAmounts([first]), { timeout: 10_000 }).toEqual([1]);

      await bus.jsm.consumers.delete(stream, c.consumerName);
      const second = await l.publish({ version: 1, amount: 2 });
      await expect.poll(() => appliedAmounts([first, second]), { timeout: 15_000, interval: 100 }).toEqual([1, 2]);
      expect(c.stats().restarts).toBeGreaterThan(0);
      // The re-created durable delivers the stream again from its start; the inbox keeps the first event single.
      expect(c.stats().duplicates).toBe(1);

      // An operator deletes it and at once creates it again under the same name (another configuration).
      const restarts = c.stats().restarts;
      await bus.jsm.consumers.delete(stream, c.consumerName);
      await bus.jsm.consumers.add(stream, { durable_name: c.consumerName, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.New, filter_subject: busSubject(prefix, l.subject) });
      const third = await l.publish({ version: 1, amount: 3 });
      await expect.poll(() => appliedAmounts([first, second, third]), { timeout: 15_000, interval: 100 }).toEqual([1, 2, 3]);
      expect(c.stats().restarts).toBeGreaterThan(restarts);
    } finally {
      await c.stop();
    }
  });

  it('prunes its own inbox rows older than the retention on its poll, in batches, and keeps the rest', async () => {
    const l = newLane();
    const other = `test__other-${l.key}`;
    const aged = (consumer: string, n: number, ageMs: number) =>
      db.query(
        `insert into es_inbox (consumer, message_id, processed_at)
         select $1, gen_random_uuid()::text, now() - $3 * interval '1 millisecond' from generate_series(1, $2::int)`,
        [consumer, n, ageMs],
      );
    const count = async (consumer: string, olderThanMs: number) =>
      Number(
        (
          await db.query<{ n: string }>(`select count(*)::text as n from es_inbox where consumer = $1 and processed_at < now() - $2 * interval '1 millisecond'`, [
            consumer,
            olderThanMs,
          ])
        )[0]!.n,
      );
    // More old rows than one batch deletes, rows inside the retention, and another consumer's old rows.
    await aged(l.durableName, 12_000, 3_600_000);
    await aged(l.durableName, 3, 1_000);
    await aged(other, 5, 3_600_000);
    const c = l.consumer({ handle: applyAmount, inboxRetentionMs: 60_000, inboxPruneEveryMs: 1, replayPollMs: 50 });
    await c.start();
    try {
      await expect.poll(() => count(l.durableName, 60_000), { timeout: 10_000, interval: 100 }).toBe(0);
      expect(await count(l.durableName, 0)).toBe(3);
      expect(await count(other, 0)).toBe(5);
      // A row the consumer writes now is kept by later prunes.
      const id = await l.publish({ version: 1, amount: 7 });
      await expect.poll(() => inInbox(l.durableName, id), { timeout: 10_000 }).toBe(true);
      // Stopped first (`stop` waits for a prune under way): its own poll, every 50 ms here, could otherwise prune
      // these before the call counts them.
      await c.stop();
      await aged(l.durableName, 2, 3_600_000);
      expect(await c.pruneInbox()).toBe(2);
      expect(await inInbox(l.durableName, id)).toBe(true);
    } finally {
      await c.stop();
    }
  });

  it('keeps consuming after its stream is deleted and re-created', async () => {
    const l = newLane();
    const c = l.consumer({ handle: applyAmount, ensureStream: () => ensureEventStream(bus, 'market') });
    await c.start();
    try {
      const first = await l.publish({ version: 1, amount: 1 });
      await expect.poll(() => appliedAmounts([first]), { timeout: 10_000 }).toEqual([1]);

      await bus.jsm.streams.delete(stream);
      // The consumer notices, re-creates the stream (ensureStream) and its durable on it.
      await expect
        .poll(() => bus.jsm.consumers.info(stream, c.consumerName).then(() => true, () => false), { timeout: 15_000, interval: 100 })
        .toBe(true);
      const second = await l.publish({ version: 1, amount: 2 });
      await expect.poll(() => appliedAmounts([first, second]), { timeout: 15_000, interval: 100 }).toEqual([1, 2]);
    } finally {
      await c.stop();
    }
  });

  it('applies one at a time, in order, by default; with `handleMany`, what arrives together in one transaction each', async () => {
    const l = newLane();
    const order: number[] = [];
    const c = l.consumer({
      handle: async (event, tx) => {
        order.push((event.data as { amount: number }).amount);
        await applyAmount(event, tx);
      },
    });
    const ids: string[] = [];
    for (let i = 1; i <= 12; i++) ids.push(await l.publish({ version: 1, amount: i }));
    await c.start();
    try {
      await expect.poll(() => appliedAmounts(ids), { timeout: 15_000, interval: 50 }).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(order).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    } finally {
      await c.stop();
    }

    const m = newLane();
    const batches: number[] = [];
    const many = m.consumer({
      batchSize: 5,
      handle: () => Promise.reject(new Error('not used while batches succeed')),
      handleMany: async (events, tx) => {
        batches.push(events.length);
        // Long enough for the next messages to arrive while this transaction is busy.
        await tx.query('select pg_sleep(0.05)');
        for (const e of events) await applyAmount(e, tx);
      },
    });
    const again = randomUUID();
    const manyIds = [await m.publish({ version: 1, amount: 1 }, again)];
    for (let i = 2; i <= 12; i++) manyIds.push(await m.publish({ version: 1, amount: i }));
    // The same event once more (a re-publish after the duplicate window): applied once.
    await m.publish({ version: 1, amount: 1 }, again);
    await many.start();
    try {
      await expect.poll(() => appliedAmounts(manyIds), { timeout: 15_000, interval: 50 }).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      await expect.poll(() => many.stats(), { timeout: 5_000, interval: 50 }).toMatchObject({ applied: 12, duplicates: 1, failed: 0 });
      expect(batches.reduce((a, b) => a + b, 0)).toBe(12);
      expect(Math.max(...batches)).toBeGreaterThan(1);
      expect(Math.max(...batches)).toBeLessThanOrEqual(5);
    } finally {
      await many.stop();
    }
  });

  it('applies a batch that fails again message by message, so only the failing message is retried', async () => {
    const l = newLane();
    let failures = 0;
    const apply = async (event: BusEvent, tx: { query: Db['query'] }) => {
      if ((event.data as { amount: number }).amount === 3 && failures++ < 2) throw new Error('the third fails twice');
      await applyAmount(event, tx);
    };
    let batches = 0;
    const c = l.consumer({
      retryBaseMs: 100,
      handle: apply,
      handleMany: async (events, tx) => {
        batches++;
        for (const e of events) await apply(e, tx);
      },
    });
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await l.publish({ version: 1, amount: i }));
    await c.start();
    try {
      await expect.poll(() => appliedAmounts(ids), { timeout: 15_000, interval: 50 }).toEqual([1, 2, 3, 4, 5]);
      expect(batches).toBeGreaterThan(0);
      // The batch's failure, then the third's alone (once more on its redelivery); the others applied alone once.
      expect(failures).toBe(3);
      expect(c.stats()).toMatchObject({ applied: 5, failed: 1, deadLettered: 0 });
    } finally {
      await c.stop();
    }
  });

  it('keeps the messages it holds alive while a handler is slower than the ack wait: applied once, never redelivered', async () => {
    const l = newLane();
    let calls = 0;
    const c = l.consumer({
      ackWaitMs: 900,
      handle: async (event, tx) => {
        calls++;
        await pause(2_000);
        await applyAmount(event, tx);
      },
    });
    await c.start();
    try {
      // The second waits in the batch behind the first for longer than the ack wait, too.
      const ids = [await l.publish({ version: 1, amount: 1 }), await l.publish({ version: 1, amount: 2 })];
      await expect.poll(() => appliedAmounts(ids), { timeout: 15_000, interval: 100 }).toEqual([1, 2]);
      const info = await l.info(c);
      expect(info.num_redelivered).toBe(0);
      expect(calls).toBe(2);
      expect(c.stats()).toMatchObject({ applied: 2, duplicates: 0 });
    } finally {
      await c.stop();
    }
  });

  it('retries a failing handler with growing delays, dead-letters it after maxDeliver, and replays it on request', async () => {
    const l = newLane();
    const attempts: number[] = [];
    let healed = false;
    const c = l.consumer({
      maxDeliver: 3,
      retryBaseMs: 200,
      handle: async (event, tx) => {
        if (!healed) {
          attempts.push(Date.now());
          throw new Error('downstream refused');
        }
        await applyAmount(event, tx);
      },
    });
    await c.start();
    try {
      const id = await l.publish({ version: 1, amount: 7 });
      await expect
        .poll(async () => (await db.query('select 1 from es_dead_letters where consumer = $1', [l.durableName])).length, { timeout: 15_000, interval: 100 })
        .toBe(1);
      expect(attempts).toHaveLength(3);
      // The server honours each nak delay: 200 ms, then 400 ms.
      expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(190);
      expect(attempts[2]! - attempts[1]!).toBeGreaterThanOrEqual(390);
      const [row] = await db.query<{ reason: string; deliveries: number; event_id: string; event_type: string; error: string; payload: string; subject: string }>(
        'select reason, deliveries, event_id, event_type, error, payload, subject from es_dead_letters where consumer = $1',
        [l.durableName],
      );
      expect(row).toMatchObject({ reason: 'failed', deliveries: 3, event_id: id, event_type: 'Counted', error: 'downstream refused', subject: busSubject(prefix, l.subject) });
      expect(JSON.parse(row!.payload)).toMatchObject({ id, data: { amount: 7 } });
      expect(await inInbox(l.durableName, id)).toBe(false);
      // Terminated: once the server has taken the termination (nothing of the lane pending an ack any more; a nak
      // would keep it pending), it offers the message no more.
      await expect.poll(async () => (await l.info(c)).num_ack_pending, { timeout: 10_000, interval: 100 }).toBe(0);
      expect(attempts).toHaveLength(3);

      // The runbook's replay: fix the cause, mark the row, and the consumer applies it and drops the row.
      healed = true;
      await db.query('update es_dead_letters set replay_requested_at = now() where consumer = $1', [l.durableName]);
      expect(await c.replayDeadLetters()).toBe(1);
      expect(await appliedAmounts([id])).toEqual([7]);
      expect(await inInbox(l.durableName, id)).toBe(true);
      expect(await db.query('select 1 from es_dead_letters where consumer = $1', [l.durableName])).toEqual([]);
    } finally {
      await c.stop();
    }
  });

  it('terminates and dead-letters malformed messages without calling the handler', async () => {
    const l = newLane();
    let calls = 0;
    const c = l.consumer({
      handle: async () => {
        calls++;
      },
    });
    await c.start();
    try {
      await bus.js.publish(busSubject(prefix, l.subject), 'not json at all');
      await bus.js.publish(busSubject(prefix, l.subject), JSON.stringify({ hello: 'world' }));
      await expect
        .poll(async () => db.query<{ reason: string; payload: string; deliveries: number }>('select reason, payload, deliveries from es_dead_letters where consumer = $1 order by id', [l.durableName]), {
          timeout: 10_000,
          interval: 100,
        })
        .toEqual([
          { reason: 'malformed', payload: 'not json at all', deliveries: 1 },
          { reason: 'malformed', payload: '{"hello":"world"}', deliveries: 1 },
        ]);
      // Both terminations taken by the server: neither can be offered again.
      await expect.poll(async () => (await l.info(c)).num_ack_pending, { timeout: 10_000, interval: 100 }).toBe(0);
      expect((await l.info(c)).num_redelivered).toBe(0);
      expect(calls).toBe(0);
    } finally {
      await c.stop();
    }
  });

  it('leaves an event it does not understand for a later reader: not in the inbox, counted and logged once, not dead-lettered, applied after the upgrade', async () => {
    const l = newLane();
    const { logger, lines } = capturingLogger();
    // The old reader knows version 1 only; it gives up on failing messages after 2 deliveries.
    const old = l.consumer({ logger, maxDeliver: 2, unknownRetryMs: 200, decode: (e) => decodeEvent(readsV1, e), handle: applyAmount });
    await old.start();
    const known = await l.publish({ version: 1, amount: 1 });
    const newer = await l.publish({ version: 2, amounts: [2, 3] });
    try {
      await expect.poll(() => appliedAmounts([known]), { timeout: 10_000 }).toEqual([1]);
      // Offered again and again (beyond maxDeliver), never applied, never recorded.
      await expect.poll(async () => (await l.info(old)).num_redelivered, { timeout: 10_000, interval: 100 }).toBeGreaterThanOrEqual(1);
      await expect.poll(() => lines.filter((x) => x.eventId === newer).length, { timeout: 10_000 }).toBeGreaterThan(0);
      // Delivered a fourth time (after `known`, the consumer's 5th delivery): the first three were handled, one
      // more than maxDeliver, each to its end (a redelivery follows the previous one's nak).
      await expect.poll(async () => (await l.info(old)).delivered.consumer_seq, { timeout: 10_000, interval: 100 }).toBeGreaterThanOrEqual(5);
      expect(await inInbox(l.durableName, newer)).toBe(false);
      expect(await appliedAmounts([newer])).toEqual([]);
      expect(old.stats().unknown).toBe(1);
      const warned = lines.filter((x) => x.msg === 'consumer: event not understood by this release; left for a later reader');
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ eventId: newer, type: 'Counted', unknownEvents: 1 });
      expect(await db.query('select 1 from es_dead_letters where consumer = $1', [l.durableName])).toEqual([]);
    } finally {
      await old.stop();
    }

    // The upgraded reader (same durable) reads version 2 as well and applies the event left for it.
    const upgraded = l.consumer<CountedEvent>({
      decode: (e) => decodeEvent(readsV1AndV2, e),
      handle: async (event, tx) => {
        const sum = event.data.version === 1 ? event.data.amount : event.data.amounts.reduce((a, b) => a + b, 0);
        await insertApplied(tx, event.id, sum);
      },
    });
    await upgraded.start();
    try {
      await expect.poll(() => appliedAmounts([newer]), { timeout: 10_000, interval: 100 }).toEqual([5]);
      expect(await inInbox(l.durableName, newer)).toBe(true);
      expect(await appliedAmounts([known])).toEqual([1]);
    } finally {
      await upgraded.stop();
    }
  });

  it('treats an event its decoder throws on as not understood: left on the stream, not dead-lettered', async () => {
    const l = newLane();
    let handled = 0;
    const c = l.consumer({
      unknownRetryMs: 200,
      decode: () => {
        throw new Error('decoder bug');
      },
      handle: async () => {
        handled++;
      },
    });
    await c.start();
    try {
      const id = await l.publish({ version: 1, amount: 1 });
      await expect.poll(async () => (await l.info(c)).num_redelivered, { timeout: 10_000, interval: 100 }).toBeGreaterThanOrEqual(1);
      expect(c.stats().unknown).toBe(1);
      expect(handled).toBe(0);
      expect(await inInbox(l.durableName, id)).toBe(false);
      expect(await db.query('select 1 from es_dead_letters where consumer = $1', [l.durableName])).toEqual([]);
    } finally {
      await c.stop();
    }
  });
});

describe.skipIf(skipWithoutNatsServer)('DurableConsumer across a NATS restart', () => {
  let nats: PrivateNats;
  let bus: Bus;
  let stream: string;
  beforeAll(async () => {
    nats = await PrivateNats.start();
    bus = await connectBus({ natsUrl: nats.url, name: 'durable-consumer-restart', prefix: `${uniqueName('dcr')}.` });
    stream = await ensureEventStream(bus, 'market');
  });
  afterAll(async () => {
    await bus?.close().catch(() => undefined);
    await nats?.stop();
  });

  it('applies every event exactly once when NATS is killed while a handler runs and comes back', async () => {
    const l = lane(() => bus, () => stream);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let blocked = false;
    const c = l.consumer({
      handle: async (event, tx) => {
        if ((event.data as { amount: number }).amount === 3) {
          blocked = true;
          await gate;
        }
        await applyAmount(event, tx);
      },
    });
    await c.start();
    try {
      const ids: string[] = [];
      for (let amount = 1; amount <= 5; amount++) ids.push(await l.publish({ version: 1, amount }));
      await expect.poll(() => blocked, { timeout: 10_000 }).toBe(true);

      // NATS dies while event 3 is being handled: its ack (and those of 4 and 5) may never arrive.
      await nats.kill();
      release();
      await pause(1_500);
      await nats.resume();

      for (let amount = 6; amount <= 8; amount++) {
        await expect.poll(() => l.publish({ version: 1, amount }).then((id) => ids.push(id), () => false), { timeout: 15_000, interval: 250 }).not.toBe(false);
      }
      await expect.poll(() => appliedAmounts(ids), { timeout: 30_000, interval: 200 }).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      await expect.poll(async () => (await l.info(c)).num_ack_pending, { timeout: 15_000, interval: 200 }).toBe(0);
      expect(await appliedAmounts(ids)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    } finally {
      release();
      await c.stop();
    }
  }, 90_000);

  it('pulls again after missed heartbeats (a server that hung without closing the connection)', async () => {
    const l = lane(() => bus, () => stream);
    const c = l.consumer({ handle: applyAmount });
    await c.start();
    try {
      const first = await l.publish({ version: 1, amount: 1 });
      await expect.poll(() => appliedAmounts([first]), { timeout: 10_000 }).toEqual([1]);
      const restarts = c.stats().restarts;
      // Long enough for two heartbeats (500 ms) to be missed; the client's pings (2 min) see nothing wrong.
      nats.freeze();
      await pause(2_500);
      nats.thaw();
      const second = await l.publish({ version: 1, amount: 2 });
      await expect.poll(() => appliedAmounts([first, second]), { timeout: 10_000, interval: 100 }).toEqual([1, 2]);
      expect(c.stats().restarts).toBeGreaterThan(restarts);
    } finally {
      nats.thaw();
      await c.stop();
    }
  }, 60_000);
});
