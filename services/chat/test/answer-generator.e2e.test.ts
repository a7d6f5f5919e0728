/**
 * The chat service on its own (real Postgres and NATS, no gateway): a model that goes silent is abandoned
 * after the idle timeout, the abort reaches the model, and the answer is stored as failed (counted: the model
 * had sent part of it).
 * No billing runs, so the provider's free limit applies.
 */
import { randomUUID } from 'node:crypto';
import { busName, connectBus, createLogger } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatApp, createChatApp } from '../src/chat.app.js';
import type { ChatModel, ModelRequest } from '../src/generation/chat-model.js';
import { ensureChatStreams } from '../src/generation/chat-streams.js';

/** Writes one chunk, then nothing until aborted; asked `nul`, answers with U+0000 in its chunks instead. */
class SilentModel implements ChatModel {
  readonly name = 'silent';
  aborted = false;
  async *stream(req: ModelRequest, signal: AbortSignal) {
    if (req.messages.at(-1)?.content === 'nul') {
      for (const content of ['A\u0000B', '\u0000', 'C']) yield { content };
      yield { finished: true as const };
      return;
    }
    yield { content: 'Thinking' };
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    this.aborted = true;
  }
}

let app: ChatApp;
let drop: () => Promise<void>;
const model = new SilentModel();
const prefix = `${uniqueName('chatgen')}.`;

beforeAll(async () => {
  const db = await createTestDatabase('chatgen');
  drop = db.drop;
  app = await createChatApp({
    databaseUrl: db.url,
    natsUrl: testNatsUrl(),
    busPrefix: prefix,
    logger: createLogger('test', 'silent'),
    openai: { baseUrl: 'http://127.0.0.1:9/v1', connectTimeoutMs: 1000, idleTimeoutMs: 300, maxRetries: 0 },
    model,
  });
});
afterAll(async () => {
  await app?.close();
  const bus = await connectBus({ natsUrl: testNatsUrl(), name: 'chatgen-cleanup', prefix });
  await bus.jsm.streams.delete(busName(prefix, 'CHAT_STREAMS')).catch(() => undefined);
  await bus.close();
  await drop?.();
});

describe('idle timeout', () => {
  it('abandons a silent model as failed (aborting it), keeps what it wrote, and counts it (the model had started)', async () => {
    const user = `u-${randomUUID().slice(0, 8)}`;
    const chat = (await app.chat.create(user, { context_type: 'support' })).data;
    const sent = await app.chat.send(user, { chat_id: chat.id, message: 'hello?' });
    expect((await app.chat.limitsOf(user)).data.find((l) => l.context_type === 'support')!.used).toBe(1);
    const deadline = Date.now() + 5000;
    let status = 'streaming';
    while (status === 'streaming' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await app.chat.getMessage(user, { chat_id: chat.id, message_id: sent.message_id })).data.status;
    }
    expect(status).toBe('failed');
    expect(model.aborted).toBe(true);
    const [row] = await app.db.query<{ content: string; error: string }>('select content, error from chat_messages where id = $1', [sent.message_id]);
    expect(row).toEqual({ content: 'Thinking', error: 'The model sent nothing for 300 ms.' });
    expect((await app.chat.limitsOf(user)).data.find((l) => l.context_type === 'support')!.used).toBe(1);
  });
});

describe('shutdown', () => {
  it('lets a running answer finish within the drain time before the service closes', async () => {
    const db = await createTestDatabase('chatgen_drain');
    const slowPrefix = `${uniqueName('chatdrain')}.`;
    const slow: ChatModel = {
      name: 'slow',
      async *stream() {
        for (const w of ['one ', 'two ', 'three']) {
          await new Promise((r) => setTimeout(r, 150));
          yield { content: w };
        }
        yield { finished: true as const };
      },
    };
    const other = await createChatApp({
      databaseUrl: db.url,
      natsUrl: testNatsUrl(),
      busPrefix: slowPrefix,
      logger: createLogger('test', 'silent'),
      openai: { baseUrl: 'http://127.0.0.1:9/v1', connectTimeoutMs: 1000, idleTimeoutMs: 5000, maxRetries: 0 },
      model: slow,
      shutdownDrainMs: 5000,
    });
    const user = `u-${randomUUID().slice(0, 8)}`;
    const chat = (await other.chat.create(user, { context_type: 'support' })).data;
    const sent = await other.chat.send(user, { chat_id: chat.id, message: 'count' });
    const check = await connectBus({ natsUrl: testNatsUrl(), name: 'chatdrain-check', prefix: slowPrefix });
    try {
      await other.close();
      // The service is closed: read what it stored with a plain connection.
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query<{ status: string; content: string }>('select status, content from chat_messages where id = $1', [sent.message_id]);
      await client.end();
      expect(rows[0]).toEqual({ status: 'complete', content: 'one two three' });
    } finally {
      await check.jsm.streams.delete(busName(slowPrefix, 'CHAT_STREAMS')).catch(() => undefined);
      await check.close();
      await db.drop();
    }
  });
});

describe('JetStream not storing for a while (a NATS node lost, the stream electing a leader)', () => {
  it('publishes every event of the answer once it can, in order, ending with done', async () => {
    const db = await createTestDatabase('chatgen_retry');
    const retryPrefix = `${uniqueName('chatretry')}.`;
    const words: ChatModel = {
      name: 'words',
      async *stream() {
        for (const w of ['one ', 'two ', 'three']) {
          await new Promise((r) => setTimeout(r, 50));
          yield { content: w };
        }
        yield { finished: true as const };
      },
    };
    const other = await createChatApp({
      databaseUrl: db.url,
      natsUrl: testNatsUrl(),
      busPrefix: retryPrefix,
      logger: createLogger('test', 'silent'),
      openai: { baseUrl: 'http://127.0.0.1:9/v1', connectTimeoutMs: 1000, idleTimeoutMs: 5000, maxRetries: 0 },
      model: words,
      streamMaxAgeMs: 60_000,
    });
    const stream = busName(retryPrefix, 'CHAT_STREAMS');
    try {
      // No stream to store into: every publish of the answer fails until it is back.
      await other.bus.jsm.streams.delete(stream);
      const user = `u-${randomUUID().slice(0, 8)}`;
      const chat = (await other.chat.create(user, { context_type: 'support' })).data;
      const sent = await other.chat.send(user, { chat_id: chat.id, message: 'count' });
      const deadline = Date.now() + 5000;
      while ((await other.db.query<{ status: string }>('select status from chat_messages where id = $1', [sent.message_id]))[0]?.status === 'streaming') {
        if (Date.now() > deadline) throw new Error('the answer did not finish');
        await new Promise((r) => setTimeout(r, 20));
      }
      await ensureChatStreams(other.bus, 60_000);
      const events: { type: string; content?: string }[] = [];
      const until = Date.now() + 10_000;
      while (events.at(-1)?.type !== 'done' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        events.length = 0;
        const info = await other.bus.jsm.streams.info(stream);
        for (let seq = info.state.first_seq; info.state.messages > 0 && seq <= info.state.last_seq; seq++) {
          const m = await other.bus.jsm.streams.getMessage(stream, { seq });
          const e = m!.json<{ type: string; data: { content?: string } }>();
          events.push({ type: e.type, ...(e.data.content ? { content: e.data.content } : {}) });
        }
      }
      // The chunks that waited behind the stored `start` go out together (coalesced), the text whole and in order.
      expect(events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1])).toEqual(['start', 'chunk', 'done']);
      expect(events.map((e) => e.content ?? '').join('')).toBe('one two three');
    } finally {
      await other.close();
      await other.bus.jsm.streams.delete(stream).catch(() => undefined);
      await db.drop();
    }
  });
});

describe('what Postgres cannot store', () => {
  it('drops U+0000 from a model\'s answer, which is then stored complete (it streamed, then failed to store, and was reported done)', async () => {
    const user = `u-${randomUUID().slice(0, 8)}`;
    const chat = (await app.chat.create(user, { context_type: 'support' })).data;
    const sent = await app.chat.send(user, { chat_id: chat.id, message: 'nul' });
    const deadline = Date.now() + 5000;
    let message = (await app.chat.getMessage(user, { chat_id: chat.id, message_id: sent.message_id })).data;
    while (message.status === 'streaming' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      message = (await app.chat.getMessage(user, { chat_id: chat.id, message_id: sent.message_id })).data;
    }
    expect(message).toMatchObject({ status: 'complete', content: 'ABC' });
  });
});
