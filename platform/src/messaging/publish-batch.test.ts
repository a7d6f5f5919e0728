import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNatsUrl, uniqueName } from '../testing/test-env.js';
import { type Bus, connectBus, ensureStream } from './bus.js';
import { type BatchMessage, publishBatch } from './publish-batch.js';

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
    await expect(publishBatch(bus, [{ subject: `${prefix}.batch.big`, data: 'x'.repeat(200), msgId: `${prefix}-big` }])).rejects.toThrow(`${prefix}.batch.big`);
    // A plain subscriber that never answers stands in for a server that never acknowledges.
    const silent = bus.nc.subscribe(`${prefix}.silent`);
    try {
      await expect(publishBatch(bus, [{ subject: `${prefix}.silent`, data: '{}', msgId: `${prefix}-silent` }], 300)).rejects.toThrow(`${prefix}.silent`);
    } finally {
      silent.unsubscribe();
    }
  });

  it('sends payloads given whole or in parts, and a Nats-Msg-Id among the headers replaces the message id', async () => {
    await ensureStream(bus, { name: eqStream, subjects: [`${prefix}.eq.>`], duplicate_window: 60_000_000_000 });
    const batch: BatchMessage[] = [
      { subject: `${prefix}.eq.parts`, data: ['{"a":', Buffer.from('"Ёлка'), '"}'], msgId: `${prefix}-p-0`, headers: { 'x-correlation-id': 'Пётр' } },
      { subject: `${prefix}.eq.parts`, data: new Uint8Array([0, 255, 13, 10]), msgId: `${prefix}-p-1`, headers: { 'x-a': '1', 'Nats-Msg-Id': `${prefix}-p-override` } },
    ];
    const before = (await bus.jsm.streams.info(eqStream)).state.last_seq;
    expect(await publishBatch(bus, batch)).toEqual({ duplicates: [] });
    const first = (await bus.jsm.streams.getMessage(eqStream, { seq: before + 1 }))!;
    expect(first.string()).toBe('{"a":"Ёлка"}');
    expect(first.header.get('x-correlation-id')).toBe('Пётр');
    const second = (await bus.jsm.streams.getMessage(eqStream, { seq: before + 2 }))!;
    expect([...second.data]).toEqual([0, 255, 13, 10]);
    expect(second.header.get('Nats-Msg-Id')).toBe(`${prefix}-p-override`);
    // Stored under the overriding id: that id again is a duplicate.
    expect(await publishBatch(bus, [{ subject: `${prefix}.eq.parts`, data: '{}', msgId: `${prefix}-p-override` }])).toEqual({ duplicates: [0] });
  });

  it('rejects a message nats.js refuses (a header name with a colon), naming its subject', async () => {
    await expect(publishBatch(bus, [{ subject: `${prefix}.batch.y`, data: '{}', msgId: 'id', headers: { 'bad:name': 'v' } }])).rejects.toThrow(`${prefix}.batch.y`);
  });
});
