import { headers as natsHeaders } from '@nats-io/nats-core';
import type { Bus } from './bus.js';

/** A message's payload: text (sent as UTF-8), bytes, or parts of either sent one after the other. */
export type BatchPayload = string | Uint8Array | readonly (string | Uint8Array)[];

/** One message of `publishBatch`: its subject (already prefixed), payload and JetStream message id. */
export interface BatchMessage {
  subject: string;
  data: BatchPayload;
  /** `Nats-Msg-Id`: a repeat within the stream's duplicate window is dropped. */
  msgId: string;
  /** Further headers (e.g. the correlation id). */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Publishes `messages` to JetStream, pipelined (every `js.publish` sent before the first acknowledgement is
 * awaited, as in the nats.js publish examples), and resolves when the server acknowledged every one.
 *
 * Resolves with the indexes of the messages JetStream dropped as duplicates (already stored under their id).
 * Rejects on the first refusal (an error acknowledgement, no stream listening on a subject) or when an
 * acknowledgement did not arrive within `timeoutMs`; whatever was acknowledged by then is stored, so a caller
 * retries the whole batch under the same message ids.
 */
export async function publishBatch(bus: Pick<Bus, 'js'>, messages: readonly BatchMessage[], timeoutMs = 5_000): Promise<{ duplicates: number[] }> {
  const acks = await Promise.all(
    messages.map(async (m) => {
      try {
        const h = natsHeaders();
        // Set first, so that a `Nats-Msg-Id` among the headers replaces it.
        h.set('Nats-Msg-Id', m.msgId);
        for (const [k, v] of Object.entries(m.headers ?? {})) h.set(k, v);
        return await bus.js.publish(m.subject, joined(m.data), { headers: h, timeout: timeoutMs });
      } catch (err) {
        throw new Error(`publish to ${m.subject} failed: ${(err as Error).message}`, { cause: err });
      }
    }),
  );
  return { duplicates: acks.flatMap((ack, i) => (ack.duplicate ? [i] : [])) };
}

/** A payload as one string or byte array. */
function joined(data: BatchPayload): string | Uint8Array {
  if (typeof data === 'string' || data instanceof Uint8Array) return data;
  return Buffer.concat(data.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}
