/**
 * `/ready` fails when a service's durable consumer is stuck (messages waiting, none processed, lag not
 * shrinking for the configured time), names it, and recovers once the consumer moves again. A stand-in
 * service on the real NATS and Postgres: the platform's ServiceResources, health controller and consumer.
 */
import { randomUUID } from 'node:crypto';
import type { BusEvent } from '@invest/contracts';
import {
  type Bus,
  busSubject,
  createHealthController,
  createLogger,
  type Db,
  deadLetterMigration,
  DurableConsumer,
  ensureEventStream,
  eventStoreMigration,
  ServiceResources,
  streamNameOf,
} from '@invest/platform';
import { testNatsUrl, uniqueName, useTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayApp, type GatewayApp } from '../src/gateway.app.js';

const silent = createLogger('stuck-test', 'silent');
const busPrefix = `${uniqueName('stuck')}.`;
const service = 'probe';

let db: Db;
useTestDatabase('stuck', [eventStoreMigration, deadLetterMigration], (opened) => (db = opened));

let res: ServiceResources;
let bus: Bus;
let consumer: DurableConsumer;
let gw: GatewayApp;
let base: string;
let release!: () => void;
const subject = `market.events.Counted.${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  res = new ServiceResources(silent);
  bus = await res.connectBus({ natsUrl: testNatsUrl(), name: service, prefix: busPrefix });
  const stream = await ensureEventStream(bus, 'market');
  const held = new Promise<void>((r) => (release = r));
  await res.startApp([createHealthController(service, res.problems)], { name: service, natsUrl: testNatsUrl(), logger: silent, busPrefix });
  consumer = await res.start(
    new DurableConsumer({ db, bus, stream, durableName: `${service}__counted`, filterSubject: subject, logger: silent, pullExpiresMs: 1_000, lagSampleMs: 100, stuckAfterMs: 1_000, handle: () => held }),
  );
  gw = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix, readyServices: [service], logger: createLogger('gateway', 'silent') });
  base = await gw.listen(0, '127.0.0.1');
});

afterAll(async () => {
  release?.();
  await gw?.close();
  await bus?.jsm.streams.delete(streamNameOf(bus, 'market')).catch(() => undefined);
  await res?.close();
});

const ready = async () => {
  const r = await fetch(`${base}/ready`);
  return { status: r.status, body: (await r.json()) as { problems?: Record<string, string[]> } };
};

describe('readiness with a stuck consumer', () => {
  it('fails naming the consumer while it is stuck, and is ready again once it moves', async () => {
    await expect.poll(async () => (await ready()).status, { timeout: 10_000 }).toBe(200);
    const event: BusEvent = { id: randomUUID(), type: 'Counted', streamName: 'c-1', streamPosition: 1, recordedAt: new Date().toISOString(), data: {}, metadata: {} };
    await bus.js.publish(busSubject(busPrefix, subject), JSON.stringify(event));

    await expect.poll(async () => (await ready()).status, { timeout: 15_000, interval: 100 }).toBe(503);
    const { body } = await ready();
    expect(body.problems?.[service]).toEqual([expect.stringMatching(new RegExp(`^consumer ${consumer.consumerName} stuck: 1 messages waiting`))]);

    release();
    await expect.poll(async () => (await ready()).status, { timeout: 15_000, interval: 100 }).toBe(200);
  });
});
