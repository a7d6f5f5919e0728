/**
 * The chat metrics (issue 36), on the chat service alone (real Postgres and NATS) with the local OpenAI-compatible
 * server: an answer is an open stream while it runs, its first text is timed, its usage counted as tokens, and a
 * model that fails counts as a model error. The registry is the process's: values are compared before and after.
 * No billing runs, so the provider's free limit applies.
 */
import { randomUUID } from 'node:crypto';
import { busName, connectBus, createLogger } from '@invest/platform';
import { createTestDatabase, eventually, metricValue, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatApp, createChatApp } from '../src/chat.app.js';
import { type FakeOpenAi, startFakeOpenAi } from '../src/testing/fake-openai.js';

let app: ChatApp;
let model: FakeOpenAi;
let drop: () => Promise<void>;
const prefix = `${uniqueName('chatmetrics')}.`;

beforeAll(async () => {
  const db = await createTestDatabase('chatmetrics');
  drop = db.drop;
  model = await startFakeOpenAi({ apiKey: 'sk-metrics' });
  app = await createChatApp({
    databaseUrl: db.url,
    natsUrl: testNatsUrl(),
    busPrefix: prefix,
    logger: createLogger('test', 'silent'),
    openai: { baseUrl: model.url, apiKey: 'sk-metrics', connectTimeoutMs: 5000, idleTimeoutMs: 10_000, maxRetries: 0 },
    toolRounds: 0,
  });
});
afterAll(async () => {
  await app?.close();
  await model?.close();
  const bus = await connectBus({ natsUrl: testNatsUrl(), name: 'chatmetrics-cleanup', prefix });
  await bus.jsm.streams.delete(busName(prefix, 'CHAT_STREAMS')).catch(() => undefined);
  await bus.close();
  await drop?.();
});

/** Asks a new support chat of a new user; the answer's ids. */
async function ask(message: string): Promise<{ user: string; chatId: string; messageId: string }> {
  const user = `u-${randomUUID().slice(0, 8)}`;
  const chat = (await app.chat.create(user, { context_type: 'support' })).data;
  const sent = await app.chat.send(user, { chat_id: chat.id, message });
  return { user, chatId: chat.id, messageId: sent.message_id };
}

const settled = (a: { user: string; chatId: string; messageId: string }) =>
  eventually(
    async () => (await app.chat.getMessage(a.user, { chat_id: a.chatId, message_id: a.messageId })).data.status,
    (status) => status !== 'streaming',
    `answer ${a.messageId} settled`,
  );

describe('chat metrics', () => {
  it('an answer is an open stream while it runs; its first chunk is timed and its usage counted as tokens', async () => {
    const open = await metricValue('invest_chat_open_streams');
    const timed = await metricValue('invest_chat_first_chunk_seconds', {}, '_count');
    const prompt = await metricValue('invest_chat_tokens_total', { kind: 'prompt' });
    const completion = await metricValue('invest_chat_tokens_total', { kind: 'completion' });
    const requests = model.requests.length;
    model.queue.push({ chunks: ['Hello', ' there.'], holdLast: true, usage: { prompt_tokens: 120, completion_tokens: 7 } });

    const answer = await ask('hello?');
    const request = await model.waitForRequest(requests + 1);
    await eventually(async () => request.sent, (n) => n >= 1, 'the first chunk sent');
    expect(await metricValue('invest_chat_open_streams')).toBe(open + 1);
    await eventually(() => metricValue('invest_chat_first_chunk_seconds', {}, '_count'), (n) => n === timed + 1, 'the first chunk timed');

    request.release();
    expect(await settled(answer)).toBe('complete');
    await eventually(() => metricValue('invest_chat_open_streams'), (n) => n === open, 'the stream closed');
    expect(await metricValue('invest_chat_tokens_total', { kind: 'prompt' })).toBe(prompt + 120);
    expect(await metricValue('invest_chat_tokens_total', { kind: 'completion' })).toBe(completion + 7);
  });

  it('a model that fails counts as a model error; its answer is not timed', async () => {
    const errors = await metricValue('invest_chat_model_errors_total');
    const timed = await metricValue('invest_chat_first_chunk_seconds', {}, '_count');
    model.queue.push({ status: 500 });
    expect(await settled(await ask('and now?'))).toBe('failed');
    expect(await metricValue('invest_chat_model_errors_total')).toBe(errors + 1);
    expect(await metricValue('invest_chat_first_chunk_seconds', {}, '_count')).toBe(timed);
  });
});
