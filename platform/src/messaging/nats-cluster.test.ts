/**
 * A three-node JetStream cluster (deploy/nats/cluster.conf, private, on loopback ports) with
 * JETSTREAM_REPLICAS=3: streams get three replicas, a stream of one replica is scaled up, and a client
 * given every node in NATS_URL keeps publishing (relay) and consuming (DurableConsumer) while a node is
 * SIGKILLed and restarted, every event applied exactly once; the restarted node catches up (also on the
 * consumer that was scaled up with its stream). Skipped where nats-server is missing.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, Migration } from '../db/database.js';
import { appendToStream } from '../event-store/event-store.js';
import { eventStoreMigration } from '../event-store/event-store.migration.js';
import { createLogger } from '../logging/logger.js';
import { NATS_CLUSTER_CONFIG, NatsCluster } from '../testing/nats-cluster.js';
import { skipWithoutNatsServer } from '../testing/private-nats.js';
import { uniqueName } from '../testing/test-env.js';
import { useTestDatabase } from '../testing/use-test-database.js';
import { clusterStatus } from './cluster-status.js';
import { type Bus, connectBus, ensureEventStream, ensureStream, retryTransient, streamNameOf } from './bus.js';
import { deadLetterMigration } from './dead-letter.migration.js';
import { DurableConsumer } from './durable-consumer.js';
import { EventRelay } from './event-relay.js';

class CreateApplied extends Migration {
  override up() {
    // No unique key: a second application of an event would show as a second row.
    this.addSql('create table applied (event_id uuid not null, n int not null)');
  }
}

const logger = createLogger('cluster-test', 'silent');

/** Peers holding a stream or consumer, leader included (`cluster.replicas` lists the others). */
const peersOf = (info: { cluster?: { leader?: string; replicas?: { name: string }[] } }) =>
  [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].filter(Boolean).length;

describe.skipIf(skipWithoutNatsServer)('three-node JetStream cluster', () => {
  let cluster: NatsCluster;
  let bus: Bus;
  let db: Db;
  useTestDatabase('pl_cluster', [eventStoreMigration, deadLetterMigration, { name: '0001-applied', class: CreateApplied }], (opened) => (db = opened));

  beforeAll(async () => {
    cluster = await NatsCluster.start();
    bus = await connectBus({ natsUrl: cluster.url, name: 'cluster-test', prefix: `${uniqueName('cl')}.`, replicas: 3 });
  }, 60_000);
  afterAll(async () => {
    await bus?.close();
    await cluster?.stop();
  });

  it('creates streams with JETSTREAM_REPLICAS replicas', async () => {
    const name = await ensureEventStream(bus, 'alerts');
    const info = await bus.jsm.streams.info(name);
    expect(info.config.num_replicas).toBe(3);
    await expect.poll(async () => peersOf(await bus.jsm.streams.info(name)), { timeout: 10_000 }).toBe(3);
  });

  it('scales a stream of one replica, and its consumers, to JETSTREAM_REPLICAS', async () => {
    const single = { ...bus, replicas: 1 };
    const name = await ensureEventStream(single, 'billing');
    expect((await bus.jsm.streams.info(name)).config.num_replicas).toBe(1);
    const consumer = new DurableConsumer({ db, bus, stream: name, durableName: 'test__scaled', logger, handle: async () => undefined });
    await consumer.ensure();
    const created = await bus.jsm.consumers.info(name, consumer.consumerName);
    expect([created.config.num_replicas, peersOf(created)]).toEqual([1, 1]);

    // A service restarted with JETSTREAM_REPLICAS=3 ensures its streams, then its consumers.
    await ensureEventStream(bus, 'billing');
    expect((await bus.jsm.streams.info(name)).config.num_replicas).toBe(3);
    await consumer.ensure();
    expect((await retryTransient(() => bus.jsm.consumers.info(name, consumer.consumerName))).config.num_replicas).toBe(3);
    // While the new peers catch up the cluster may answer "temporarily unavailable": ask again.
    await expect.poll(async () => peersOf(await retryTransient(() => bus.jsm.streams.info(name))), { timeout: 20_000 }).toBe(3);
    await expect.poll(async () => peersOf(await retryTransient(() => bus.jsm.consumers.info(name, consumer.consumerName))), { timeout: 20_000 }).toBe(3);
  });

  it('keeps relaying and consuming, each event once, through the loss and restart of a node', async () => {
    const stream = await ensureEventStream(bus, 'market');
    expect(stream).toBe(streamNameOf(bus, 'market'));
    const relay = new EventRelay({ db, bus, name: 'cluster-relay', logger, subjectFor: (e) => `market.events.${e.type}`, pollMs: 100 });
    const consumer = new DurableConsumer({
      db,
      bus,
      stream,
      durableName: 'test__cluster',
      filterSubject: 'market.events.RatesUpdated',
      logger,
      ackWaitMs: 2_000,
      pullExpiresMs: 2_000,
      reconnectBaseMs: 100,
      ensureStream: () => ensureEventStream(bus, 'market'),
      handle: async (event, tx) => {
        await tx.query('insert into applied (event_id, n) values ($1, $2)', [event.id, (event.data as { n: number }).n]);
      },
    });
    let n = 0;
    const record = () => db.transaction((tx) => appendToStream(tx, `asset-${randomUUID()}`, [{ type: 'RatesUpdated', data: { n: ++n } }]));
    const applied = async () => Number((await db.query<{ c: string }>('select count(*)::text as c from applied'))[0]!.c);

    await relay.start();
    await consumer.start();
    // Steady writes the whole time, as a service would make them.
    let writing = true;
    const writer = (async () => {
      while (writing) {
        await record();
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      await expect.poll(applied, { timeout: 10_000 }).toBeGreaterThan(10);

      // Lose the node holding the stream's leadership (the worst case), then the rest of the cluster goes on.
      const leader = (await bus.jsm.streams.info(stream)).cluster!.leader!;
      await cluster.kill(leader);
      const atLoss = await applied();
      await expect.poll(applied, { timeout: 20_000 }).toBeGreaterThan(atLoss + 20);
      // What `npm run nats:cluster -- status` prints: the lost node, and the stream led by another one.
      const status = await clusterStatus(cluster.nodes.map((node) => node.monitorUrl));
      expect(status).toContain(`node at ${cluster.node(leader).monitorUrl}: not answering (fetch failed)`);
      expect(status.find((l) => l.startsWith(`stream ${stream}:`))).toMatch(new RegExp(`^stream ${stream}: R3, \\d+ messages; (?!${leader})n\\d\\*`));

      await cluster.restart(leader);
      const atRestart = await applied();
      await expect.poll(applied, { timeout: 20_000 }).toBeGreaterThan(atRestart + 20);

      writing = false;
      await writer;
      await expect.poll(applied, { timeout: 20_000 }).toBe(n);
      const [dup] = await db.query<{ c: string }>('select count(*)::text as c from (select event_id from applied group by event_id having count(*) > 1) d');
      expect(Number(dup!.c)).toBe(0);
      // Nothing missing on the stream either: JetStream kept every relayed event once (msgID deduplication).
      expect((await retryTransient(() => bus.jsm.streams.info(stream))).state.messages).toBe(n);
    } finally {
      writing = false;
      await writer;
      await consumer.stop();
      await relay.stop();
    }
  }, 60_000);

  it('ensureStream given an explicit num_replicas keeps it', async () => {
    const name = `${uniqueName('cl_explicit')}`.toUpperCase();
    await ensureStream(bus, { name, subjects: [`${name}.>`], num_replicas: 1 });
    expect((await bus.jsm.streams.info(name)).config.num_replicas).toBe(1);
  });
});

describe('cluster configuration of the deployment', () => {
  const withoutComments = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));

  it('is the same in deploy/nats/cluster.conf and the ConfigMap of deploy/k8s/nats-cluster.yaml', () => {
    const manifest = readFileSync(new URL('../../../deploy/k8s/nats-cluster.yaml', import.meta.url), 'utf8');
    const block = /nats\.conf: \|\n((?: {4}.*\n)+)/.exec(manifest)?.[1] ?? '';
    expect(withoutComments(block)).toEqual(withoutComments(readFileSync(NATS_CLUSTER_CONFIG, 'utf8')));
  });
});
