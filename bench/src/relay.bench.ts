/**
 * `npm run bench -- relay [--seconds N] [--rate N] [--batch N]`: event delivery latency, from the start of the
 * transaction that appends an event to the commit of the consumer transaction that applies it:
 * append (es_events) → relay (woken by LISTEN/NOTIFY) → JetStream → DurableConsumer (inbox + effect, committed).
 * A steady writer appends `rate` transactions per second of `batch` events each, for `seconds` per scenario:
 *   alone             - nothing else running on the bench's databases;
 *   other db 100 ms   - another database of the same server runs writing transactions of 100 ms, back to back;
 *   other db 2 s      - the same with transactions of 2 s.
 * Each scenario runs with the relay's cluster-wide horizon (`pg_snapshot_xmin`, the rule before) and the
 * per-database horizon (the rule now), side by side in the same run. Every event must be applied (once: the inbox).
 * Own databases and bus prefix, removed afterwards.
 */
import { randomUUID } from 'node:crypto';
import {
  appendToStream,
  busName,
  connectBus,
  createLogger,
  deadLetterMigration,
  DurableConsumer,
  ensureEventStream,
  EventRelay,
  eventStoreMigration,
  Migration,
  openDatabase,
  type ReadHorizon,
} from '@invest/platform';
import { testNatsUrl, testPostgresUrl, uniqueName } from '@invest/platform/testing/index';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { parseOptions } from './support/args.js';

interface Options {
  seconds: number;
  rate: number;
  batch: number;
}

function parseArgs(args: string[]): Options {
  return parseOptions(args, { seconds: 10, rate: 5, batch: 4 });
}

class CreateApplied extends Migration {
  override up() {
    this.addSql('create table applied (event_id uuid primary key)');
  }
}

const BUDGET_MS = 200;
const EVENT_TYPE = 'RelayBench';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const fmt = (ms: number) => `${ms.toFixed(1).padStart(8)} ms`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: testPostgresUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Writing transactions of `ms` each, back to back, in another database until stopped. */
function foreignLoad(url: string, ms: number): { stop(): Promise<number> } {
  let running = true;
  const c = new pg.Client({ connectionString: url });
  const loop = (async () => {
    await c.connect();
    let n = 0;
    while (running) {
      await c.query('begin');
      await c.query('insert into busy (at) values (now())');
      await c.query('select pg_sleep($1)', [ms / 1000]);
      await c.query('commit');
      n++;
    }
    await c.end();
    return n;
  })();
  return {
    async stop() {
      running = false;
      return loop;
    },
  };
}

export async function run(args: string[]): Promise<void> {
  const o = parseArgs(args);
  const logger = createLogger('bench-relay', 'warn');
  const dbName = uniqueName('bench_relay');
  const otherName = uniqueName('bench_relay_other');
  const prefix = `${uniqueName('benchrelay')}.`;
  await admin(async (c) => {
    await c.query(`create database "${otherName}"`);
  });
  const other = new pg.Client({ connectionString: testPostgresUrl(otherName) });
  await other.connect();
  await other.query('create table busy (at timestamptz not null)');
  await other.end();

  const db = await openDatabase({ url: testPostgresUrl(dbName), migrations: [eventStoreMigration, deadLetterMigration, { name: '0001-applied', class: CreateApplied }], logger });
  const bus = await connectBus({ natsUrl: testNatsUrl(), name: 'bench-relay', prefix });
  const stream = await ensureEventStream(bus, 'market');

  // Append start time of every event not applied yet; the consumer's commit closes it.
  const appendedAt = new Map<string, number>();
  let latencies: number[] = [];
  const consumer = new DurableConsumer({
    db,
    bus,
    stream,
    durableName: 'bench__relay',
    filterSubject: `market.events.${EVENT_TYPE}`,
    logger,
    handle: async (event, tx) => {
      await tx.query('insert into applied (event_id) values ($1)', [event.id]);
    },
    afterCommit: (event) => {
      const t0 = appendedAt.get(event.id);
      if (t0 === undefined) return;
      latencies.push(performance.now() - t0);
      appendedAt.delete(event.id);
    },
  });
  await consumer.start();

  async function appendBatch(): Promise<void> {
    const events = Array.from({ length: o.batch }, () => ({ id: randomUUID(), type: EVENT_TYPE, data: { at: Date.now() } }));
    const t0 = performance.now();
    for (const e of events) appendedAt.set(e.id, t0);
    await db.transaction((tx) => appendToStream(tx, `bench-${randomUUID()}`, events));
  }

  /** `rate` appends per second on a fixed schedule (a slow append does not push the next one back). */
  async function steadyWriter(seconds: number): Promise<number> {
    const interval = 1000 / o.rate;
    const start = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i * interval < seconds * 1000; i++) {
      const wait = start + i * interval - performance.now();
      if (wait > 0) await sleep(wait);
      inflight.push(appendBatch());
    }
    await Promise.all(inflight);
    return inflight.length * o.batch;
  }

  /** Waits until every appended event is applied; long, since a cluster-wide horizon waits for any transaction on the server. */
  async function delivered(timeoutMs = 300_000): Promise<void> {
    const end = performance.now() + timeoutMs;
    while (appendedAt.size > 0) {
      if (performance.now() > end) {
        const [cp] = await db.query('select transaction_id::text, global_position::text from es_checkpoints');
        const [last] = await db.query('select transaction_id::text, global_position::text, pg_current_snapshot()::text as snap from es_events order by es_events.global_position desc limit 1');
        const info = await bus.jsm.consumers.info(stream, busName(prefix, 'bench__relay')).catch((e: unknown) => String(e));
        const state = typeof info === 'string' ? info : { pending: info.num_pending, ackPending: info.num_ack_pending, delivered: info.delivered };
        throw new Error(`${appendedAt.size} events not applied within ${timeoutMs} ms: ${JSON.stringify({ checkpoint: cp, last, consumer: state })}`);
      }
      await sleep(20);
    }
  }

  async function measure(horizon: ReadHorizon, loadMs: number | null, seconds: number) {
    const relay = new EventRelay({ db, bus, name: 'bench-relay', logger, horizon, subjectFor: (e) => `market.events.${e.type}` });
    await relay.start();
    const load = loadMs === null ? null : foreignLoad(testPostgresUrl(otherName), loadMs);
    try {
      if (load) await sleep(Math.min(loadMs!, 500)); // the first foreign transaction is open
      latencies = [];
      const appended = await steadyWriter(seconds);
      await delivered();
      if (latencies.length !== appended) throw new Error(`${appended} events appended, ${latencies.length} applied`);
      return latencies;
    } finally {
      await load?.stop();
      await relay.stop();
    }
  }

  try {
    console.log(
      `${o.rate} appends/s of ${o.batch} events (${o.rate * o.batch} events/s), ${o.seconds} s per scenario and horizon; ` +
        `Postgres ${new URL(testPostgresUrl()).host}, NATS ${testNatsUrl()}; budget ${BUDGET_MS} ms; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
    );
    await measure('database', null, 2); // warm-up: connections, consumer, JIT
    const scenarios: { name: string; loadMs: number | null }[] = [
      { name: 'alone', loadMs: null },
      { name: 'other db: 100 ms writing transactions', loadMs: 100 },
      { name: 'other db: 2 s writing transactions', loadMs: 2000 },
    ];
    console.log('');
    console.log(`${'append -> consumer commit'.padEnd(40)}${'horizon'.padEnd(20)}${'p50'.padStart(11)}${'p99'.padStart(11)}${'max'.padStart(11)}  p99 ≤ ${BUDGET_MS} ms`);
    for (const s of scenarios) {
      for (const horizon of ['cluster', 'database'] as const) {
        const xs = await measure(horizon, s.loadMs, o.seconds);
        const p99 = percentile(xs, 99);
        console.log(
          `${s.name.padEnd(40)}${(horizon === 'cluster' ? 'cluster (before)' : 'database (now)').padEnd(20)}` +
            `${fmt(percentile(xs, 50))}${fmt(p99)}${fmt(Math.max(...xs))}  ${p99 <= BUDGET_MS ? 'met' : 'NOT met'}`,
        );
      }
    }
  } finally {
    await consumer.stop();
    await bus.jsm.streams.delete(stream).catch(() => undefined);
    await bus.close();
    await db.close();
    await admin(async (c) => {
      await c.query(`drop database if exists "${dbName}" with (force)`);
      await c.query(`drop database if exists "${otherName}" with (force)`);
    });
  }
}
