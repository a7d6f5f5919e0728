/**
 * `npm run bench -- failover [--rounds N] [--interval N]`: what the loss of one node of a three-node
 * JetStream cluster (deploy/nats/cluster.conf, private, loopback) costs a client that has every node in
 * NATS_URL, with a stream of three replicas (JETSTREAM_REPLICAS=3).
 *
 * A publisher sends one event every `interval` ms (each waiting for its ack) and a DurableConsumer (the
 * services' consumer, inbox in Postgres) reads them; both use one client, connected to the node that is killed. Per round and per victim:
 *   baseline          - the same window with no node lost (same run);
 *   stream leader     - SIGKILL of the node leading the stream (and serving the client);
 *   meta leader       - SIGKILL of the JetStream meta leader, when it is another node;
 * and for each: client reconnect time, new stream/meta leader election time, the longest gap between two
 * acked publishes, failed publishes, the p99 and max publish→delivery delay of events sent in the 10 s after
 * the kill, and the time a restarted node takes to be healthy (caught up) again.
 */
import { randomUUID } from 'node:crypto';
import {
  busName,
  busSubject,
  connectBus,
  createLogger,
  type Bus,
  type Db,
  deadLetterMigration,
  DurableConsumer,
  ensureEventStream,
  eventStoreMigration,
  openDatabase,
  retryTransient,
} from '@invest/platform';
import { createTestDatabase, NatsCluster, uniqueName } from '@invest/platform/testing/index';
import { parseOptions } from './support/args.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const ms = (v: number) => (Number.isNaN(v) ? '      -' : `${v.toFixed(0).padStart(6)} ms`);

interface Row {
  scenario: string;
  reconnectMs: number;
  electionMs: number;
  longestGapMs: number;
  /** From the kill to the ack of the first publish sent after it. */
  firstAckMs: number;
  failed: number;
  /** Acked publishes never delivered to the consumer (must be 0). */
  lost: number;
  p99DeliveryMs: number;
  maxDeliveryMs: number;
  healthyAfterRestartMs: number;
}

export async function run(args: string[]): Promise<void> {
  const opts = parseOptions(args, { rounds: 3, interval: 20 });
  const cluster = await NatsCluster.start();
  const prefix = `${uniqueName('bench_fo')}.`;
  const rows: Row[] = [];
  const database = await createTestDatabase('bench_failover');
  const db = await openDatabase({ url: database.url, migrations: [eventStoreMigration, deadLetterMigration] });
  try {
    const bus = await connectBus({ natsUrl: cluster.url, name: 'bench-failover-admin', prefix, replicas: 3 });
    const jsmAdmin = bus.jsm;
    const stream = await ensureEventStream(bus, 'market');
    const setup: Setup = { cluster, db, jsmAdmin, prefix, stream, intervalMs: opts.interval };
    const streamLeader = async () => (await retryTransient(() => jsmAdmin.streams.info(stream))).cluster?.leader;

    for (let round = 1; round <= opts.rounds; round++) {
      rows.push(await window(setup, 'baseline', async () => undefined));
      const victim = (await streamLeader())!;
      rows.push(await window(setup, 'stream leader', async () => victim));
      const meta = await cluster.waitForMetaLeader();
      const other = meta === (await streamLeader()) ? undefined : meta;
      if (other) rows.push(await window(setup, 'meta leader', async () => other));
      console.log(`  round ${round}/${opts.rounds} done`);
    }
    await bus.close();
  } finally {
    await cluster.stop();
    await db.close();
    await database.drop();
  }

  console.log(`\nthree-node cluster, stream R3, one publish every ${opts.interval} ms awaiting its ack; client connected to the killed node`);
  console.log('scenario        reconnect   election  1st ack after kill  longest gap  failed  lost   p99 deliv.  max deliv.  healthy after restart');
  for (const r of rows) {
    console.log(
      `${r.scenario.padEnd(14)} ${ms(r.reconnectMs)} ${ms(r.electionMs)}    ${ms(r.firstAckMs)}    ${ms(r.longestGapMs)}   ${String(r.failed).padStart(5)} ${String(r.lost).padStart(5)} ${ms(r.p99DeliveryMs)}  ${ms(r.maxDeliveryMs)}  ${ms(r.healthyAfterRestartMs)}`,
    );
  }
}

/**
 * One measured window of ~14 s: publishing and consuming for 2 s, then the victim (if any) is killed,
 * 10 s more, then it is restarted and the window ends once it is healthy.
 */
interface Setup {
  cluster: NatsCluster;
  db: Db;
  jsmAdmin: Bus['jsm'];
  prefix: string;
  stream: string;
  intervalMs: number;
}

const subjectSuffix = 'market.events.FailoverBench';
const logger = createLogger('bench-failover', 'silent');

async function window({ cluster, db, jsmAdmin, prefix, stream, intervalMs }: Setup, scenario: string, pickVictim: () => Promise<string | undefined>): Promise<Row> {
  const subject = busSubject(prefix, subjectSuffix);
  const victim = await pickVictim();
  const asMeta = scenario === 'meta leader';
  // The client starts on the victim (or any node for the baseline), so its loss forces a failover.
  const first = victim ? cluster.node(victim) : cluster.nodes[0]!;
  const ordered = [first, ...cluster.nodes.filter((n) => n !== first)].map((n) => n.url).join(',');
  const bus = await connectBus({ natsUrl: ordered, name: `bench-failover-${scenario}`, prefix, replicas: 3, connection: { noRandomize: true } });
  const { nc, js } = bus;
  const durable = `bench__failover_${randomUUID().slice(0, 8)}`;
  // Each window reads only its own events.
  await retryTransient(() => jsmAdmin.streams.purge(stream));

  let disconnectAt = 0;
  let reconnectMs = NaN;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' && !disconnectAt) disconnectAt = performance.now();
      if (s.type === 'reconnect' && disconnectAt && Number.isNaN(reconnectMs)) reconnectMs = performance.now() - disconnectAt;
    }
  })();

  const sentAt = new Map<string, number>();
  const acked = new Set<string>();
  const delivered = new Set<string>();
  const delays: { at: number; delay: number }[] = [];
  // The services' consumer (inbox in Postgres, its own pull and reconnect loop), on the client under test.
  const consumer = new DurableConsumer({
    db,
    bus,
    stream,
    durableName: durable,
    filterSubject: subjectSuffix,
    logger,
    handle: async (event) => {
      const t = sentAt.get(event.id);
      if (t !== undefined && !delivered.has(event.id)) delays.push({ at: t, delay: performance.now() - t });
      delivered.add(event.id);
    },
  });
  await consumer.start();

  const t0 = performance.now();
  let publishing = true;
  let failed = 0;
  let lastAck = performance.now();
  let longestGapMs = 0;
  let killedAtForAcks = Infinity;
  let firstAckAfterKill = NaN;
  const publisher = (async () => {
    while (publishing) {
      const id = randomUUID();
      sentAt.set(id, performance.now());
      try {
        const event = { id, type: 'FailoverBench', streamName: 'bench', streamPosition: 0, recordedAt: new Date().toISOString(), data: {}, metadata: {} };
        await js.publish(subject, JSON.stringify(event), { msgID: id, timeout: 2_000 });
        const now = performance.now();
        acked.add(id);
        if (Number.isNaN(firstAckAfterKill) && sentAt.get(id)! > killedAtForAcks) firstAckAfterKill = now - killedAtForAcks;
        longestGapMs = Math.max(longestGapMs, now - lastAck);
        lastAck = now;
      } catch (err) {
        failed++;
        if (process.env.FAILOVER_DEBUG) console.log(`    ${(performance.now() - t0).toFixed(0)} ms publish failed: ${String((err as Error).message)}`);
      }
      await sleep(intervalMs);
    }
  })();

  await sleep(2_000);
  const killedAt = performance.now();
  if (victim) killedAtForAcks = killedAt;
  let electionMs = NaN;
  let healthyAfterRestartMs = NaN;
  if (victim) {
    const wasMeta = asMeta;
    await cluster.kill(victim);
    if (process.env.FAILOVER_DEBUG) console.log(`    ${(performance.now() - t0).toFixed(0)} ms killed ${victim} (meta leader: ${wasMeta})`);
    // Election: a new leader of the stream (or of the meta group) that is not the victim.
    const until = performance.now() + 20_000;
    while (performance.now() < until) {
      const leader = wasMeta ? await cluster.metaLeader() : await cluster.streamLeader(stream);
      if (leader && leader !== victim) {
        electionMs = performance.now() - killedAt;
        if (process.env.FAILOVER_DEBUG) console.log(`    ${(performance.now() - t0).toFixed(0)} ms new leader ${leader}`);
        break;
      }
      await sleep(20);
    }
  }
  await sleep(Math.max(0, 10_000 - (performance.now() - killedAt)));
  if (victim) {
    const t = performance.now();
    await cluster.restart(victim, 60_000);
    healthyAfterRestartMs = performance.now() - t;
  }
  publishing = false;
  await publisher;
  // Let the consumer drain what was acked.
  for (let i = 0; i < 100 && [...acked].some((id) => !delivered.has(id)); i++) await sleep(100);
  await consumer.stop();
  await bus.close();
  await jsmAdmin.consumers.delete(stream, busName(prefix, durable)).catch(() => undefined);

  const afterKill = delays.filter((d) => d.at >= killedAt && d.at < killedAt + 10_000).map((d) => d.delay);
  return {
    scenario,
    reconnectMs,
    electionMs,
    longestGapMs,
    firstAckMs: firstAckAfterKill,
    failed,
    lost: [...acked].filter((id) => !delivered.has(id)).length,
    p99DeliveryMs: percentile(afterKill, 99),
    maxDeliveryMs: afterKill.length ? Math.max(...afterKill) : NaN,
    healthyAfterRestartMs,
  };
}
