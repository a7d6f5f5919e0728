/**
 * `Idempotency-Key` on a chat send: a repeat (a client retrying after a dropped connection or a 503) gets the
 * first try's answer streamed again, counts nothing against the limit and asks the model nothing, unless that
 * answer failed (then the question is asked again); the same key with another question is a 422; a refused send
 * leaves the key unused. Real gateway, chat, NATS and Postgres.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStack, startChatStack } from '../support/chat-stack.js';
import { eventKinds, type SseEvent } from '../support/sse-reader.js';

let stack: ChatStack;
const newUser = () => `idem-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  stack = await startChatStack('chatidem', { heartbeatMs: 200 });
}, 120_000);
afterAll(() => stack?.close());

const supportChat = (user: string) => stack.createChat(user);
const send = (user: string, chatId: string, message: string, key?: string) =>
  stack.openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message }, headers: key === undefined ? {} : { 'idempotency-key': key } });
const used = async (user: string) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- read loosely
  (await stack.api('GET', '/api/ai-chat/limits', { user })).body.data.find((l: any) => l.context_type === 'support').used as number;
const messagesOf = async (user: string, chatId: string) => (await stack.api('GET', `/api/ai-chat/${chatId}`, { user })).body.data.messages as { id: string; role: string; content: string }[];
const text = (events: SseEvent[]) => events.filter((e) => e.event === 'chunk').map((e) => e.data.content).join('');

describe('a chat send with an Idempotency-Key', () => {
  it('repeated after the answer: the same answer streams again, nothing more is counted, stored or asked of the model', async () => {
    const user = newUser();
    const chatId = await supportChat(user);
    const key = randomUUID();
    stack.model.queue.push({ chunks: ['Once ', 'only.'] });
    const asked = stack.model.requests.length;
    const first = await (await send(user, chatId, 'Hello?', key)).rest();
    expect(eventKinds(first)).toEqual(['start', 'chunk', 'done']);
    expect(stack.model.requests.length).toBe(asked + 1);

    const again = await send(user, chatId, 'Hello?', key);
    expect(again.res.status).toBe(200);
    const repeat = await again.rest();
    expect(repeat[0]).toMatchObject({ event: 'start', data: first[0]!.data });
    expect(text(repeat)).toBe('Once only.');
    expect(repeat.at(-1)).toMatchObject({ event: 'done', data: { message_id: first[0]!.data.message_id, status: 'complete' } });
    expect(stack.model.requests.length).toBe(asked + 1);
    expect(await used(user)).toBe(1);
    expect((await messagesOf(user, chatId)).map((m) => m.role)).toEqual(['user', 'assistant']);

    // Without a key the same question is a new one.
    stack.model.queue.push({ chunks: ['Twice.'] });
    const fresh = await (await send(user, chatId, 'Hello?')).rest();
    expect(fresh[0]!.data.message_id).not.toBe(first[0]!.data.message_id);
    expect(text(fresh)).toBe('Twice.');
    expect(await used(user)).toBe(2);
  });

  it('repeated while the first answer is still being written: the repeat joins it live, and both end with the whole answer', async () => {
    const user = newUser();
    const chatId = await supportChat(user);
    const key = randomUUID();
    stack.model.queue.push({ chunks: ['Slow ', 'and ', 'steady.'], holdLast: true });
    const asked = stack.model.requests.length;
    const first = await send(user, chatId, 'Tell me slowly', key);
    const start = await first.next();
    expect(start?.event).toBe('start');
    await stack.model.waitForRequest(asked + 1);
    const second = await send(user, chatId, 'Tell me slowly', key);
    const secondStart = await second.next();
    expect(secondStart).toMatchObject({ event: 'start', data: start!.data });
    stack.model.release();
    const [a, b] = await Promise.all([first.rest(), second.rest()]);
    expect(text([start!, ...a])).toBe('Slow and steady.');
    expect(text([secondStart!, ...b])).toBe('Slow and steady.');
    expect(b.at(-1)).toMatchObject({ event: 'done', data: { status: 'complete' } });
    expect(stack.model.requests.length).toBe(asked + 1);
    expect(await used(user)).toBe(1);
  });

  it('sent twice at once: one answer for both, counted once', async () => {
    const user = newUser();
    const chatId = await supportChat(user);
    const key = randomUUID();
    const asked = stack.model.requests.length;
    const [a, b] = await Promise.all([send(user, chatId, 'Both at once', key), send(user, chatId, 'Both at once', key)]);
    const [ea, eb] = await Promise.all([a.rest(), b.rest()]);
    expect(ea[0]!.event).toBe('start');
    expect(eb[0]).toMatchObject({ event: 'start', data: ea[0]!.data });
    expect(text(eb)).toBe(text(ea));
    expect(stack.model.requests.length).toBe(asked + 1);
    expect(await used(user)).toBe(1);
    expect(await messagesOf(user, chatId)).toHaveLength(2);
  });

  it('repeated after the first answer failed (given back to the limit): the question is asked again, once', async () => {
    const user = newUser();
    const chatId = await supportChat(user);
    const key = randomUUID();
    stack.model.queue.push({ status: 503 });
    const first = await (await send(user, chatId, 'Hello?', key)).rest();
    expect(first.at(-1)?.event).toBe('error');
    expect(await used(user)).toBe(0);
    const asked = stack.model.requests.length;
    stack.model.queue.push({ chunks: ['Now it works.'] });
    const retry = await (await send(user, chatId, 'Hello?', key)).rest();
    expect(retry[0]!.data.message_id).not.toBe(first[0]!.data.message_id);
    expect(text(retry)).toBe('Now it works.');
    expect(retry.at(-1)).toMatchObject({ event: 'done', data: { status: 'complete' } });
    expect(stack.model.requests.length).toBe(asked + 1);
    // The answer that worked is the key's now: a further repeat replays it.
    const again = await (await send(user, chatId, 'Hello?', key)).rest();
    expect(again[0]!.data).toEqual(retry[0]!.data);
    expect(stack.model.requests.length).toBe(asked + 1);
    expect(await used(user)).toBe(1);
    expect((await messagesOf(user, chatId)).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('the same key with another question is a 422 naming Idempotency-Key, and asks nothing', async () => {
    const user = newUser();
    const chatId = await supportChat(user);
    const key = randomUUID();
    await (await send(user, chatId, 'First question', key)).rest();
    const asked = stack.model.requests.length;
    const other = await stack.api('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'Another question' }, headers: { 'idempotency-key': key } });
    expect(other.status).toBe(422);
    expect(other.body.errors['Idempotency-Key']).toEqual(['This Idempotency-Key was already used with a different request.']);
    expect(stack.model.requests.length).toBe(asked);
    expect(await used(user)).toBe(1);
  });

  it('a refused send (another user\'s chat: 404) leaves the key unused; keys are per user', async () => {
    const user = newUser();
    const stranger = newUser();
    const theirs = await supportChat(stranger);
    const mine = await supportChat(user);
    const key = randomUUID();
    const refused = await stack.api('POST', `/api/ai-chat/${theirs}/messages`, { user, body: { message: 'Hi' }, headers: { 'idempotency-key': key } });
    expect(refused.status).toBe(404);
    // Had the refused send taken the key, this (another chat: another request) would be a 422.
    const answered = await (await send(user, mine, 'Hi', key)).rest();
    expect(answered.at(-1)).toMatchObject({ event: 'done', data: { status: 'complete' } });
    // The stranger's own send with the same key is theirs alone.
    const theirAnswer = await (await send(stranger, theirs, 'Hi', key)).rest();
    expect(theirAnswer[0]!.data.message_id).not.toBe(answered[0]!.data.message_id);
    expect(await used(stranger)).toBe(1);
  });

  it('a key that is not 1-255 visible ASCII characters is a 422, before anything is stored', async () => {
    const user = newUser();
    const chatId = await supportChat(user);
    for (const key of ['x'.repeat(256), 'two words']) {
      const r = await stack.api('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'Hi' }, headers: { 'idempotency-key': key } });
      expect(r.status, key).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(['Idempotency-Key']);
    }
    expect(await messagesOf(user, chatId)).toEqual([]);
    expect(await used(user)).toBe(0);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await stack.api('GET', '/api/docs-json')).body as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
    const params = doc.paths['/api/ai-chat/{id}/messages']!.post!.parameters ?? [];
    expect(params).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
  });
});
