import type { MsgRequest } from '@nats-io/jetstream';
import type { Bus } from './bus.js';
import { busSubject } from './bus-prefix.js';

export interface ConsumerLag {
  /** Messages not yet acknowledged: not delivered yet plus delivered and not acked. */
  messages: number;
  /** Age of the oldest of them by its stream timestamp, in seconds; 0 when none. */
  oldestAgeSeconds: number;
}

/**
 * A durable's lag, as time behind rather than only a count (what NATS recommends): the oldest message it has
 * not acknowledged is the first one of its filter after its ack floor (every message up to the floor is
 * acked). One consumer info; when behind, one message get by `next_by_subj` (the floor's next stream
 * sequence may belong to another subject of the stream).
 */
export async function readConsumerLag(bus: Bus, stream: string, durable: string, filterSubject: string | undefined, now = Date.now()): Promise<ConsumerLag> {
  const info = await bus.jsm.consumers.info(stream, durable);
  const messages = info.num_pending + info.num_ack_pending;
  if (messages === 0) return { messages, oldestAgeSeconds: 0 };
  // nats-server answers `next_by_subj` on STREAM.MSG.GET since 2.9; the client's type lists only the older forms.
  const query = { seq: info.ack_floor.stream_seq + 1, next_by_subj: filterSubject ? busSubject(bus.prefix, filterSubject) : '>' } as unknown as MsgRequest;
  const oldest = await bus.jsm.streams.getMessage(stream, query);
  return { messages, oldestAgeSeconds: oldest ? Math.max(0, (now - oldest.time.getTime()) / 1000) : 0 };
}
