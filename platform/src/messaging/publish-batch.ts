import { createInbox, headers, type Msg } from '@nats-io/nats-core';
import type { Bus } from './bus.js';

/** One message of `publishBatch`: its subject (already prefixed), payload and JetStream message id. */
export interface BatchMessage {
  subject: string;
  data: string | Uint8Array;
  /** `Nats-Msg-Id`: a repeat within the stream's duplicate window is dropped. */
  msgId: string;
  /** Further headers (e.g. the correlation id). */
  headers?: Readonly<Record<string, string>>;
}

/** A JetStream publish acknowledgement, or its refusal. */
interface PubAck {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; description?: string };
}

/**
 * Publishes `messages` to JetStream at once and resolves when the server acknowledged every one, all replies
 * arriving on one subscription for the whole batch. `js.publish` per message sets up a request each (a
 * promise, a timer and, in nats.js, an Error built for its cancellation), which costs more than sending the
 * message when hundreds go out together.
 *
 * Resolves with the indexes of the messages JetStream dropped as duplicates (already stored under their id).
 * Rejects on the first refusal (an error acknowledgement, no stream listening on a subject) or when not every
 * acknowledgement arrived within `timeoutMs`; whatever was acknowledged by then is stored, so a caller retries
 * the whole batch under the same message ids.
 */
export async function publishBatch(bus: Pick<Bus, 'nc'>, messages: readonly BatchMessage[], timeoutMs = 5_000): Promise<{ duplicates: number[] }> {
  const duplicates: number[] = [];
  if (messages.length === 0) return { duplicates };
  const { nc } = bus;
  // In the connection's inbox space, where its replies are allowed (nats.js keeps the option on the connection).
  const inbox = createInbox((nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix);
  const acked = new Uint8Array(messages.length);
  let left = messages.length;
  let settle: (err?: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    settle = (err) => (err ? reject(err) : resolve());
  });
  const onAck = (msg: Msg): void => {
    const i = Number(msg.subject.slice(inbox.length + 1));
    const m = messages[i];
    if (!m || acked[i]) return;
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      settle(new Error(`publish to ${m.subject}: no stream listens on the subject (503)`));
      return;
    }
    let ack: PubAck;
    try {
      ack = msg.json<PubAck>();
    } catch {
      settle(new Error(`publish to ${m.subject}: unreadable acknowledgement`));
      return;
    }
    if (ack.error || !ack.stream) {
      settle(new Error(`publish to ${m.subject} refused: ${ack.error?.description ?? 'no stream in the acknowledgement'} (${ack.error?.code ?? '?'})`));
      return;
    }
    acked[i] = 1;
    if (ack.duplicate) duplicates.push(i);
    if (--left === 0) settle();
  };
  const sub = nc.subscribe(`${inbox}.*`, { callback: (err, msg) => (err ? settle(err) : onAck(msg)) });
  const timer = setTimeout(() => settle(new Error(`publish: ${left} of ${messages.length} messages not acknowledged within ${timeoutMs} ms`)), timeoutMs);
  try {
    messages.forEach((m, i) => {
      const h = headers();
      h.set('Nats-Msg-Id', m.msgId);
      for (const [k, v] of Object.entries(m.headers ?? {})) h.set(k, v);
      nc.publish(m.subject, m.data, { reply: `${inbox}.${i}`, headers: h });
    });
    await done;
    return { duplicates };
  } finally {
    clearTimeout(timer);
    sub.unsubscribe();
  }
}
