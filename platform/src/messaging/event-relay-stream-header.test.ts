/**
 * Every relay puts the event's stream name in an `x-event-stream` NATS header. Stream names hold user ids
 * (`billing-user-<sub>`), and a token's `sub` may be any text without controls (gateway token-rules.ts): the
 * header must carry it as written, and never stop the relay.
 */
import { randomUUID } from 'node:crypto';
import { STREAM_HEADER } from '@invest/contracts';
import { appendToStream, type Bus, connectBus, createLogger, type Db, ensureEventStream, EventRelay, eventStoreMigration, openDatabase } from '../index.js';
import { createTestDatabase, testNatsUrl, uniqueName } from '../testing/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('the relay names the stream of a user id in a header', () => {
  let db: Db;
  let bus: Bus;
  let stream: string;
  let drop: () => Promise<void>;
  const prefix = `${uniqueName('relayhdr')}.`;
  beforeAll(async () => {
    const t = await createTestDatabase('pl_relay_hdr');
    drop = t.drop;
    db = await openDatabase({ url: t.url, migrations: [eventStoreMigration] });
    bus = await connectBus({ natsUrl: testNatsUrl(), name: 'relay-header', prefix });
    stream = await ensureEventStream(bus, 'billing');
  });
  afterAll(async () => {
    await bus?.jsm.streams.delete(stream).catch(() => undefined);
    await bus?.close();
    await db?.close();
    await drop?.();
  });

  it('publishes the events of users whose ids are not ASCII, with the stream name intact', async () => {
    const users = ['Пётр Иванов', 'a:b  c', `u-${randomUUID()}`];
    for (const user of users) {
      await db.transaction((tx) => appendToStream(tx, `billing-user-${user}`, [{ type: 'SubscriptionStarted', data: { user } }]));
    }
    const relay = new EventRelay({ db, bus, name: 'header-relay', logger: createLogger('relay', 'silent'), subjectFor: (e) => `billing.events.${e.type}` });
    expect(await relay.runOnce()).toBe(3);
    const seen: string[] = [];
    const info = await bus.jsm.streams.info(stream);
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const msg = await bus.jsm.streams.getMessage(stream, { seq });
      seen.push(msg?.header?.get(STREAM_HEADER) ?? '(none)');
    }
    expect(seen).toEqual(users.map((u) => `billing-user-${u}`));
  });
});
