import { createInbox, headers, type Msg } from '@nats-io/nats-core';
import type { Bus } from './bus.js';

/**
 * A message's payload: text (sent as UTF-8), bytes, or parts of either sent one after the other (a part
 * shared by many messages is then copied into each frame without a payload of its own being allocated).
 */
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

/** A JetStream publish acknowledgement, or its refusal. */
export interface PubAck {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; description?: string };
}

/**
 * Publishes `messages` to JetStream at once and resolves when the server acknowledged every one, all replies
 * arriving on one subscription for the whole batch. `js.publish` per message sets up a request each (a
 * promise, a timer and, in nats.js, an Error built for its cancellation), which costs more than sending the
 * message when hundreds go out together. The batch's `HPUB` frames are written in buffers of ~1 MB into the
 * connection's outbound queue (`writer: 'frames'`; `'publish'`, or a nats.js without that queue: `nc.publish`
 * per message, whose header object, two encodings and four queued pieces a message cost more than the message).
 *
 * Resolves with the indexes of the messages JetStream dropped as duplicates (already stored under their id).
 * Rejects on the first refusal (an error acknowledgement, no stream listening on a subject) or when not every
 * acknowledgement arrived within `timeoutMs`; whatever was acknowledged by then is stored, so a caller retries
 * the whole batch under the same message ids.
 */
export async function publishBatch(
  bus: Pick<Bus, 'nc'>,
  messages: readonly BatchMessage[],
  timeoutMs = 5_000,
  writer: BatchWriter = 'frames',
): Promise<{ duplicates: number[] }> {
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
    const ack = readAck(msg.data);
    if (!ack) {
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
    const protocol = writer === 'frames' ? protocolOf(nc) : undefined;
    if (protocol) {
      sendFrames(nc, protocol, inbox, messages);
    } else {
      messages.forEach((m, i) => {
        const h = headers();
        h.set('Nats-Msg-Id', m.msgId);
        for (const [k, v] of Object.entries(m.headers ?? {})) h.set(k, v);
        nc.publish(m.subject, joined(m.data), { reply: `${inbox}.${i}`, headers: h });
      });
    }
    await done;
    return { duplicates };
  } finally {
    clearTimeout(timer);
    sub.unsubscribe();
  }
}

/**
 * A JetStream publish acknowledgement, or undefined if unreadable. The usual one (`{"stream":"S","seq":1}`) is
 * read from its bytes: a stream name holds no `"`, so no key can occur inside one. Anything else (a duplicate,
 * an error) is parsed as JSON.
 */
export function readAck(data: Uint8Array): PubAck | undefined {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
  if (text.startsWith('{"stream":"') && !text.includes('"error"') && !text.includes('"duplicate"')) return { stream: text.slice(11, text.indexOf('"', 11)) };
  try {
    return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as PubAck;
  } catch {
    return undefined;
  }
}

/** How `publishBatch` hands its messages to the connection (`'publish'`: `nc.publish` each, for comparison and tests). */
export type BatchWriter = 'frames' | 'publish';

/**
 * The part of nats.js's protocol handler (`NatsConnectionImpl.protocol`, not in its public types) that queues
 * bytes for the socket: `nc.publish` ends there too, with each message's frame in four pieces. Undefined if a
 * nats.js version no longer has it, and `publishBatch` then publishes message by message.
 */
interface OutboundQueue {
  sendCommand(frame: Uint8Array): void;
  noMorePublishing?: boolean;
  info?: { max_payload?: number };
}

function protocolOf(nc: Bus['nc']): OutboundQueue | undefined {
  const protocol = (nc as unknown as { protocol?: Partial<OutboundQueue> }).protocol;
  return typeof protocol?.sendCommand === 'function' ? (protocol as OutboundQueue) : undefined;
}

/** A frame buffer is cut at about this size (a sweep's publication can hold thousands of firings). */
const FRAMES_BUFFER = 1 << 20;

/** Refuses what `nc.publish` and its header object refuse, with their reasons. */
function checkMessage(m: BatchMessage): void {
  if (m.subject.length === 0 || /[ \n\r\t]/.test(m.subject)) throw new Error(`publish: invalid subject "${m.subject}"`);
  const values = [m.msgId, ...Object.values(m.headers ?? {})];
  if (values.some((v) => /[\r\n]/.test(v))) throw new Error(`publish to ${m.subject}: a header value holds \\r or \\n`);
  for (const k of Object.keys(m.headers ?? {})) {
    if (!/^[!-9;-~]+$/.test(k)) throw new Error(`publish to ${m.subject}: "${k}" is not a valid header name`);
  }
}

/**
 * Writes each message as NATS's `HPUB <subject> <reply> <header bytes> <total bytes>\r\n<headers><payload>\r\n`
 * (what `nc.publish` writes: the same headers in the same order, values trimmed), the batch in buffers of
 * ~1 MB, queued in order behind the acknowledgement subscription. Every message is checked before any is queued.
 */
function sendFrames(nc: Bus['nc'], protocol: OutboundQueue, inbox: string, messages: readonly BatchMessage[]): void {
  if (nc.isClosed()) throw new Error('publish: the NATS connection is closed');
  if (protocol.noMorePublishing) throw new Error('publish: the NATS connection is draining');
  const maxPayload = protocol.info?.max_payload;
  const heads = messages.map((m, i) => {
    checkMessage(m);
    // As `headers.set` one after the other: a header named `Nats-Msg-Id` replaces the message id, in its place.
    let hdrs = m.headers && Object.hasOwn(m.headers, 'Nats-Msg-Id') ? 'NATS/1.0\r\n' : `NATS/1.0\r\nNats-Msg-Id: ${m.msgId.trim()}\r\n`;
    for (const [k, v] of Object.entries(m.headers ?? {})) hdrs += `${k}: ${v.trim()}\r\n`;
    hdrs += '\r\n';
    const headerBytes = Buffer.byteLength(hdrs);
    const payloadBytes = partsOf(m.data).reduce((n, part) => n + (typeof part === 'string' ? Buffer.byteLength(part) : part.length), 0);
    const total = headerBytes + payloadBytes;
    if (maxPayload !== undefined && total > maxPayload) throw new Error(`publish to ${m.subject}: ${total} bytes exceed the server's max_payload (${maxPayload})`);
    const head = `HPUB ${m.subject} ${inbox}.${i} ${headerBytes} ${total}\r\n${hdrs}`;
    return { head, frameBytes: Buffer.byteLength(head) + payloadBytes + 2 };
  });
  for (let from = 0; from < messages.length; ) {
    let to = from;
    let size = 0;
    while (to < messages.length && (to === from || size < FRAMES_BUFFER)) size += heads[to++]!.frameBytes;
    const frames = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = from; i < to; i++) {
      at += frames.write(heads[i]!.head, at);
      for (const part of partsOf(messages[i]!.data)) {
        if (typeof part === 'string') at += frames.write(part, at);
        else at += (frames.set(part, at), part.length);
      }
      at += frames.write('\r\n', at);
    }
    protocol.sendCommand(frames);
    from = to;
  }
}

/** A payload's parts (one, unless given in parts). */
const partsOf = (data: BatchPayload): readonly (string | Uint8Array)[] => (typeof data === 'string' || data instanceof Uint8Array ? [data] : data);

/** A payload as one string or byte array (for `nc.publish`). */
function joined(data: BatchPayload): string | Uint8Array {
  if (typeof data === 'string' || data instanceof Uint8Array) return data;
  return Buffer.concat(data.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}
