import pRetry from 'p-retry';
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
import { NoRespondersError, TimeoutError } from '@nats-io/nats-core';
import {
  jetstream,
  jetstreamManager,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import { type EventContext, EventStreams, eventSubject } from '@invest/contracts';
import { busName, busSubject } from './bus-prefix.js';
import { connectNats } from './nats-connection.js';

/** A NATS connection with its JetStream client and manager. */
export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** `BUS_PREFIX` of this environment; apply it with `busSubject` / `busName` (bus-prefix.ts), never by hand. */
  prefix: string;
  /** `JETSTREAM_REPLICAS`: the replicas every stream this process ensures gets (consumers inherit them). */
  replicas: number;
  close(): Promise<void>;
}

/**
 * Connects to NATS (`natsUrl`: one URL or the comma-separated nodes of a cluster, see `natsConnectionOptions`).
 * `replicas` (`JETSTREAM_REPLICAS`, default 1) is what `ensureStream` creates and updates streams with;
 * `connection` overrides nats.js options (tests and benchmarks, e.g. `noRandomize` to pick the first node).
 */
export async function connectBus(opts: { natsUrl: string; name: string; prefix?: string; replicas?: number; connection?: Partial<ConnectionOptions> }): Promise<Bus> {
  const nc = await connectNats(opts.natsUrl, opts.name, opts.connection);
  // Asks the server for the account's JetStream info: a cluster still electing its meta leader times out.
  const jsm = await retryTransient(() => jetstreamManager(nc)).catch(async (err: unknown) => {
    await nc.close();
    throw err;
  });
  return {
    nc,
    js: jetstream(nc),
    jsm,
    prefix: opts.prefix ?? '',
    replicas: opts.replicas ?? 1,
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

/**
 * Where a durable consumer of a context's events reads: the bus, the context's stream (re-created when it is
 * missing) and, given an event type, the filter on that type's subject. Spread into `DurableConsumer` options.
 */
export function eventStreamSource(bus: Bus, ctx: EventContext, type?: string): { bus: Bus; stream: string; ensureStream: () => Promise<unknown>; filterSubject?: string } {
  return {
    bus,
    stream: streamNameOf(bus, ctx),
    ensureStream: () => ensureEventStream(bus, ctx),
    ...(type === undefined ? {} : { filterSubject: eventSubject(ctx, type) }),
  };
}

/**
 * Whether a JetStream API call failed for a reason that passes by itself: the cluster is electing a
 * leader (a node was lost or is catching up), or no server answered in time.
 */
export function isTransientJetStreamError(err: unknown): boolean {
  if (err instanceof TimeoutError || err instanceof NoRespondersError) return true;
  // 10008: "JetStream system temporarily unavailable" (no leader yet); other API errors are answers.
  if (err instanceof JetStreamApiError) return err.code === 10008 || /temporarily unavailable/i.test(err.message);
  return /timeout|temporarily unavailable|no responders/i.test(String((err as Error)?.message ?? err));
}

/**
 * Runs a JetStream API call again while it fails transiently (`isTransientJetStreamError`), with backoff,
 * for at most `budgetMs` (default 30 s: a leader election after a node loss takes a few seconds).
 */
export function retryTransient<T>(call: () => Promise<T>, budgetMs = 30_000): Promise<T> {
  return retryFor(budgetMs, call, { maxDelayMs: 2_000, retryIf: isTransientJetStreamError });
}

/**
 * Runs `call` until it succeeds, backing off from 100 ms (doubling, to `maxDelayMs`, default 1 s), for at most
 * `forMs`; then, or on a failure `retryIf` refuses, throws its last error.
 */
export function retryFor<T>(forMs: number, call: () => Promise<T>, opts: { maxDelayMs?: number; retryIf?: (err: unknown) => boolean } = {}): Promise<T> {
  const { retryIf } = opts;
  return pRetry(call, {
    retries: Infinity,
    maxRetryTime: forMs,
    factor: 2,
    minTimeout: 100,
    maxTimeout: opts.maxDelayMs ?? 1_000,
    randomize: false,
    ...(retryIf ? { shouldRetry: ({ error }: { error: unknown }) => retryIf(error) } : {}),
  });
}

/** A JetStream API error saying the stream asked for does not exist. */
export function isStreamNotFound(err: unknown): boolean {
  return /not found/i.test(String((err as Error | undefined)?.message));
}

/**
 * Creates a JetStream stream, or updates it to `config` when it exists; a concurrent creator is no error.
 * Unless `config` says otherwise, the stream gets the bus's `replicas` (`JETSTREAM_REPLICAS`): an existing
 * stream with another count is scaled to it, and its consumers (which inherit the stream's count) with it.
 */
export async function ensureStream(bus: Pick<Bus, 'jsm'> & Partial<Pick<Bus, 'replicas'>>, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  const wanted = { num_replicas: bus.replicas ?? 1, ...config };
  await retryTransient(async () => {
    try {
      await bus.jsm.streams.info(wanted.name);
      await bus.jsm.streams.update(wanted.name, wanted);
    } catch (err) {
      if (!isStreamNotFound(err)) throw err;
      try {
        await bus.jsm.streams.add(wanted);
      } catch (addErr) {
        // Another process created it between our info() and add().
        if (!/already in use|already exists/i.test(String((addErr as Error).message))) throw addErr;
      }
    }
  });
}

/** How long an event stream keeps its events (unless `ensureEventStream` is told otherwise): what a consumer created afresh can replay. */
export const EVENT_STREAM_MAX_AGE_MS = 7 * 24 * 3_600_000;

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
    max_age: nanos(opts.maxAgeMs ?? EVENT_STREAM_MAX_AGE_MS),
  };
  await ensureStream(bus, config);
  return name;
}
