import { AckPolicy, DeliverPolicy, JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import type { Logger } from '../logging/logger.js';
import type { Bus } from './bus.js';
import { busSubject } from './bus-prefix.js';
import { stepDownConsumerLeader } from './cluster-status.js';

export interface DurableSetup {
  bus: Bus;
  stream: string;
  /** The durable's name on the server (bus prefix included). */
  name: string;
  /** Subject filter without the bus prefix. */
  filterSubject?: string;
  ackWaitMs: number;
  logger: Logger;
  /** Re-creates the stream when it is missing. */
  ensureStream?(): Promise<unknown>;
}

/**
 * Creates the durable consumer on the server if missing, or brings its settings up to date (idempotent). A
 * missing stream is re-created with `ensureStream` when given; otherwise this throws until it is back. The
 * consumer has as many replicas as its stream (JETSTREAM_REPLICAS, see ensureStream).
 */
export async function ensureDurable(s: DurableSetup): Promise<void> {
  const { bus, stream, name } = s;
  const replicas = await streamReplicas(s);
  // The server never drops a message on its own (max_deliver -1): the consumer decides when a failing message
  // is dead-lettered, and an event not understood yet waits for a later reader.
  const config = {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: s.ackWaitMs * 1_000_000,
    max_deliver: -1,
    // Explicit rather than inherited (0), so a stream scaled since shows here (see resync()).
    num_replicas: replicas,
    ...(s.filterSubject ? { filter_subject: busSubject(bus.prefix, s.filterSubject) } : {}),
  };
  try {
    const existing = await bus.jsm.consumers.info(stream, name);
    await bus.jsm.consumers.update(stream, name, { ack_wait: config.ack_wait, max_deliver: config.max_deliver, num_replicas: replicas });
    if (existing.config.num_replicas !== replicas && replicas > 1) await resync(s, replicas);
    return;
  } catch (err) {
    if (!(err instanceof JetStreamApiError)) throw err;
    if (err.code === JetStreamApiCodes.StreamNotFound) {
      if (!s.ensureStream) throw err;
      await s.ensureStream();
    } else if (err.code !== JetStreamApiCodes.ConsumerNotFound) {
      throw err;
    }
  }
  // Creating a durable with the same configuration twice is accepted, so racing instances are fine.
  await bus.jsm.consumers.add(stream, config);
}

/**
 * After the consumer's replica count changed (its stream was scaled): waits for the new peers, then has the
 * leader step down once. nats-server 2.9 leaves a consumer scaled up with its stream "not current" on a follower
 * after that follower restarts (so `/healthz` fails and one more lost node would stop the consumer) until a new
 * leader brings the followers up to date; the step-down does that now.
 */
async function resync(s: DurableSetup, replicas: number): Promise<void> {
  const { bus, stream, name } = s;
  for (let i = 0; i < 100; i++) {
    const info = await bus.jsm.consumers.info(stream, name);
    const followers = info.cluster?.replicas ?? [];
    if (info.cluster?.leader && followers.length === replicas - 1 && followers.every((f) => f.current)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stepDownConsumerLeader(bus.nc, stream, name);
  s.logger.info({ consumer: name, stream, replicas }, 'consumer: replicas changed with the stream; leader stepped down to bring the followers up to date');
}

/** Replicas of the stream read (re-created first with `ensureStream` when it is missing and that is given). */
async function streamReplicas(s: DurableSetup): Promise<number> {
  try {
    return (await s.bus.jsm.streams.info(s.stream)).config.num_replicas || 1;
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || err.code !== JetStreamApiCodes.StreamNotFound || !s.ensureStream) throw err;
    await s.ensureStream();
    return (await s.bus.jsm.streams.info(s.stream)).config.num_replicas || 1;
  }
}
