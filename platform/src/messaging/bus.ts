import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { type EventContext, EventStreams } from '@invest/contracts';
import { busName, busSubject } from './bus-prefix.js';

/** A NATS connection with its JetStream client and manager. */
export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** `BUS_PREFIX` of this environment; apply it with `busSubject` / `busName` (bus-prefix.ts), never by hand. */
  prefix: string;
  close(): Promise<void>;
}

export async function connectBus(opts: { natsUrl: string; name: string; prefix?: string }): Promise<Bus> {
  const nc = await connect({ servers: opts.natsUrl, name: opts.name, maxReconnectAttempts: -1 });
  const jsm = await jetstreamManager(nc);
  return {
    nc,
    js: jetstream(nc),
    jsm,
    prefix: opts.prefix ?? '',
    close: async () => {
      await nc.drain().catch(() => nc.close());
    },
  };
}

const nanos = (ms: number) => ms * 1_000_000;

/** Stream name of a context in this environment (`<prefix>_MARKET_EVENTS`; stream names allow no dots). */
export function streamNameOf(bus: Pick<Bus, 'prefix'>, ctx: EventContext): string {
  return busName(bus.prefix, EventStreams[ctx].stream);
}

/** Creates a JetStream stream, or updates it to `config` when it exists; a concurrent creator is no error. */
export async function ensureStream(bus: Pick<Bus, 'jsm'>, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await bus.jsm.streams.info(config.name);
    await bus.jsm.streams.update(config.name, config);
  } catch (err) {
    if (!/not found/i.test(String((err as Error).message))) throw err;
    try {
      await bus.jsm.streams.add(config);
    } catch (addErr) {
      // Another process created it between our info() and add().
      if (!/already in use|already exists/i.test(String((addErr as Error).message))) throw addErr;
    }
  }
}

/**
 * Creates (or updates) the JetStream stream of a context: file storage, limits retention, and a
 * duplicate window so the relay's re-publishes with the same msgID are dropped.
 */
export async function ensureEventStream(bus: Bus, ctx: EventContext, opts: { duplicateWindowMs?: number; maxAgeMs?: number } = {}) {
  const name = streamNameOf(bus, ctx);
  const config = {
    name,
    subjects: [busSubject(bus.prefix, `${EventStreams[ctx].root}.>`)],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(opts.duplicateWindowMs ?? 2 * 60_000),
    max_age: nanos(opts.maxAgeMs ?? 7 * 24 * 3_600_000),
  };
  await ensureStream(bus, config);
  return name;
}
