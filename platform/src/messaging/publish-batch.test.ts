import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNatsUrl, uniqueName } from '../testing/test-env.js';
import { type Bus, connectBus, ensureStream } from './bus.js';
import { type BatchMessage, publishBatch, readAck } from './publish-batch.js';

type SendCommand = (cmd: string | Uint8Array, ...payloads: Uint8Array[]) => void;

/** Calls `seen` with everything queued for the connection's socket (nats.js's outbound queue) until the returned restore. */
function watchOutbound(bus: Bus, seen: SendCommand): () => void {
  const protocol = (bus.nc as unknown as { protocol: { sendCommand: SendCommand } }).protocol;
  const send = protocol.sendCommand.bind(protocol);
  protocol.sendCommand = (cmd, ...payloads) => {
    seen(cmd, ...payloads);
    send(cmd, ...payloads);
  };
  return () => {
    protocol.sendCommand = send;
  };
}

describe('publishBatch on the real JetStream', () => {
  const prefix = uniqueName('batch');
  const stream = `${prefix}_BATCH`;
  const eqStream = `${prefix}_EQ`;
  let bus: Bus;
  beforeAll(async () => {
    bus = await connectBus({ natsUrl: testNatsUrl(), name: 'publish-batch-test', prefix });
    await ensureStream(bus, { name: stream, subjects: [`${prefix}.batch.>`], duplicate_window: 60_000_000_000 });
  });
  afterAll(async () => {
    await bus?.jsm.streams.delete(stream).catch(() => undefined);
    await bus?.jsm.streams.delete(eqStream).catch(() => undefined);
    await bus?.close();
  });

  it('stores every message once, in order, under its message id with its headers; a repeat adds nothing and is reported', async () => {
    const messages = Array.from({ length: 600 }, (_, i) => ({ subject: `${prefix}.batch.${i % 7}`, data: JSON.stringify({ i }), msgId: `${prefix}-${i}` }));
    expect(await publishBatch(bus, messages)).toEqual({ duplicates: [] });
    expect((await bus.jsm.streams.info(stream)).state.messages).toBe(600);
    const again = await publishBatch(bus, [...messages.slice(100, 300), { subject: `${prefix}.batch.new`, data: '{}', msgId: `${prefix}-new`, headers: { 'x-correlation-id': 'c-1' } }]);
    expect(again.duplicates).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect((await bus.jsm.streams.info(stream)).state.messages).toBe(601);
    expect((await bus.jsm.streams.getMessage(stream, { seq: 601 }))!.header.get('x-correlation-id')).toBe('c-1');
    const stored = await Promise.all([1, 300, 600].map((seq) => bus.jsm.streams.getMessage(stream, { seq })));
    expect(stored.every((m) => m!.subject.startsWith(`${prefix}.batch.`))).toBe(true);
    expect(stored.map((m) => m!.json<{ i: number }>().i)).toEqual([0, 299, 599]);
    expect(stored.map((m) => m!.header.get('Nats-Msg-Id'))).toEqual([`${prefix}-0`, `${prefix}-299`, `${prefix}-599`]);
    await expect(publishBatch(bus, [])).resolves.toEqual({ duplicates: [] });
  });

  it('rejects when a subject has no stream (503), naming the subject; the messages with a stream are stored', async () => {
    const before = (await bus.jsm.streams.info(stream)).state.messages;
    const batch = [
      { subject: `${prefix}.batch.ok`, data: '{}', msgId: `${prefix}-ok` },
      { subject: `${prefix}.nowhere.x`, data: '{}', msgId: `${prefix}-lost` },
    ];
    await expect(publishBatch(bus, batch)).rejects.toThrow(`${prefix}.nowhere.x`);
    expect((await bus.jsm.streams.info(stream)).state.messages).toBe(before + 1);
  });

  it('rejects when the stream refuses a message (over its size limit), and when acknowledgements do not come in time', async () => {
    await ensureStream(bus, { name: stream, subjects: [`${prefix}.batch.>`], duplicate_window: 60_000_000_000, max_msg_size: 64 });
    await expect(publishBatch(bus, [{ subject: `${prefix}.batch.big`, data: 'x'.repeat(200), msgId: `${prefix}-big` }])).rejects.toThrow(/refused/);
    // A plain subscriber that never answers stands in for a server that never acknowledges.
    const silent = bus.nc.subscribe(`${prefix}.silent`);
    try {
      await expect(publishBatch(bus, [{ subject: `${prefix}.silent`, data: '{}', msgId: `${prefix}-silent` }], 300)).rejects.toThrow(/1 of 1 messages not acknowledged within 300 ms/);
    } finally {
      silent.unsubscribe();
    }
  });

  it('writes frames that JetStream stores exactly as nc.publish would (subjects, payloads given whole or in parts, message ids, headers), in ~1 MB buffers', async () => {
    // The frames go through nats.js's own outbound queue: counted here, so a nats.js that no longer has it
    // (publishBatch then falls back to nc.publish per message) fails this test instead of passing silently.
    const frames: number[] = [];
    const restore = watchOutbound(bus, (cmd, ...payloads) => {
      if (typeof cmd !== 'string' && payloads.length === 0 && cmd.length > 4096) frames.push(cmd.length);
    });
    const payload = (i: number) => JSON.stringify({ i, text: `Ёлка ${'ж'.repeat(400)} "q" \\ ${i}` });
    const batch = (tag: string): BatchMessage[] =>
      Array.from({ length: 1_500 }, (_, i) => ({
        subject: `${prefix}.eq.${tag}.${i % 3}`,
        data: i % 3 === 2 ? [payload(i).slice(0, 12), Buffer.from(payload(i).slice(12, 30)), payload(i).slice(30)] : i % 2 ? payload(i) : Buffer.from(payload(i)),
        msgId: `${prefix}-eq-${tag}-${i}`,
        ...(i % 5 === 0 ? { headers: { 'x-correlation-id': ` c-${i} `, 'X-Other': 'v' } } : {}),
      }));
    try {
      await ensureStream(bus, { name: eqStream, subjects: [`${prefix}.eq.>`], duplicate_window: 60_000_000_000 });
      const before = (await bus.jsm.streams.info(eqStream)).state.last_seq;
      expect(await publishBatch(bus, batch('frames'))).toEqual({ duplicates: [] });
      expect(frames.length).toBeGreaterThanOrEqual(2);
      expect(Math.max(...frames)).toBeLessThan(1.1 * 2 ** 20);
      const written = frames.length;
      expect(await publishBatch(bus, batch('publish'), 5_000, 'publish')).toEqual({ duplicates: [] });
      expect(frames.length).toBe(written);
      const read = async (seq: number) => {
        const m = (await bus.jsm.streams.getMessage(eqStream, { seq }))!;
        return { subject: m.subject.replace(/\.(frames|publish)\./, '.'), data: m.string(), headers: m.header ? [...m.header.keys()].map((k) => [k, m.header!.get(k).replace(/-(frames|publish)-/, '-')]) : [] };
      };
      for (const i of [0, 1, 2, 5, 777, 1_499]) {
        expect(await read(before + 1 + i)).toEqual(await read(before + 1 + 1_500 + i));
      }
      const first = await bus.jsm.streams.getMessage(eqStream, { seq: before + 1 });
      expect(first!.header.get('Nats-Msg-Id')).toBe(`${prefix}-eq-frames-0`);
      expect(first!.header.get('x-correlation-id')).toBe('c-0');
      expect(first!.string()).toBe(payload(0));
      expect((await bus.jsm.streams.getMessage(eqStream, { seq: before + 3 }))!.string()).toBe(payload(2));
    } finally {
      restore();
    }
  });

  it('queues the very bytes nc.publish queues, non-ASCII headers and an overriding Nats-Msg-Id included', async () => {
    let queued: Buffer[] = [];
    const restore = watchOutbound(bus, (cmd, ...payloads) => void queued.push(Buffer.from(cmd), ...payloads.map((p) => Buffer.from(p))));
    const batch: BatchMessage[] = [
      { subject: `${prefix}.eq.bytes`, data: 'Ёлка "q"', msgId: `${prefix}-b-0`, headers: { 'x-correlation-id': ' Пётр \u00e9 ', 'X-Empty': '' } },
      { subject: `${prefix}.eq.bytes`, data: ['{"a":', Buffer.from('1}')], msgId: `${prefix}-b-1`, headers: { 'x-a': '1', 'Nats-Msg-Id': `${prefix}-b-override`, 'x-b': '2' } },
      { subject: `${prefix}.eq.bytes`, data: new Uint8Array([0, 255, 13, 10]), msgId: `${prefix}-b-2` },
    ];
    // Only the frames: the ack subscription (SUB/UNSUB) and pings around them differ, and so does each inbox.
    const frames = async (writer: 'frames' | 'publish') => {
      queued = [];
      await publishBatch(bus, batch, 5_000, writer);
      return Buffer.concat(queued)
        .toString('latin1')
        .replace(/(UNSUB|SUB|PING|PONG)[^\r]*\r\n/g, '')
        .replace(/_INBOX\.[A-Za-z0-9]+/g, '_INBOX.x');
    };
    try {
      await ensureStream(bus, { name: eqStream, subjects: [`${prefix}.eq.>`], duplicate_window: 60_000_000_000 });
      const viaFrames = await frames('frames');
      expect(viaFrames).toContain(`x-a: 1\r\nNats-Msg-Id: ${prefix}-b-override\r\nx-b: 2\r\n`);
      expect(viaFrames).not.toContain(`${prefix}-b-1\r\n`);
      expect(viaFrames.match(/HPUB /g)).toHaveLength(3);
      expect(await frames('publish')).toBe(viaFrames);
    } finally {
      restore();
    }
  });

  it('refuses a bad message before queuing any of the batch', async () => {
    const before = (await bus.jsm.streams.info(stream)).state.messages;
    const ok = { subject: `${prefix}.batch.ok2`, data: '{}', msgId: `${prefix}-ok2` };
    await expect(publishBatch(bus, [ok, { subject: `${prefix}.batch.x`, data: '{}', msgId: 'a\r\nb' }])).rejects.toThrow(/\\r or \\n/);
    await expect(publishBatch(bus, [ok, { subject: `${prefix}.batch x`, data: '{}', msgId: 'id' }])).rejects.toThrow(/invalid subject/);
    await expect(publishBatch(bus, [ok, { subject: `${prefix}.batch.y`, data: '{}', msgId: 'id', headers: { 'bad:name': 'v' } }])).rejects.toThrow(/not a valid header name/);
    await bus.nc.flush();
    expect((await bus.jsm.streams.info(stream)).state.messages).toBe(before);
  });
});

describe('readAck', () => {
  it('reads JetStream acknowledgements from their bytes, and anything else as JSON', () => {
    const ack = (s: string) => readAck(new TextEncoder().encode(s));
    expect(ack('{"stream":"S_1","seq":42}')).toEqual({ stream: 'S_1' });
    expect(ack('{"stream":"S","domain":"hub","seq":7,"duplicate": true}')).toMatchObject({ stream: 'S', duplicate: true });
    expect(ack('{"stream":"S","seq":7,"duplicate":false}')).toMatchObject({ stream: 'S', duplicate: false });
    expect(ack('{"error":{"code":503,"description":"no responders"}}')).toEqual({ error: { code: 503, description: 'no responders' } });
    expect(ack('{"stream":"S","error":{"code":400,"description":"bad"}}')).toMatchObject({ error: { code: 400 } });
    expect(ack('not json')).toBeUndefined();
  });
});
