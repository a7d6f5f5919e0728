/**
 * A keyed send's repeat streams the first answer again without a model call or a place of the daily limit: a
 * resume in all but name, so CHAT_STREAM_MAX_PER_USER caps it like a resume (issue 30, defect 4; 15 repeats of
 * one send had been 15 live streams past the cap of 10).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStack, startChatStack } from '../support/chat-stack.js';

let stack: ChatStack;

beforeAll(async () => {
  stack = await startChatStack('gwchatrepeat', { heartbeatMs: 200 });
}, 120_000);
afterAll(() => stack?.close());

describe('keyed repeats of a send', () => {
  it('are capped like resumes (429 naming the limit) and stream the one answer whole within it', async () => {
    const u = `repeat-${randomUUID().slice(0, 8)}`;
    const chatId = await stack.createChat(u);
    stack.model.queue.push({ chunks: ['Shared ', 'answer.'], holdLast: true });
    const calls = stack.model.requests.length;
    const path = `/api/ai-chat/${chatId}/messages`;
    const send = () => stack.openSse('POST', path, { user: u, body: { message: 'once' }, headers: { 'idempotency-key': 'k-1' } });
    const first = await send();
    const messageId = (await first.next())!.data.message_id as string;
    // The first send's stream is one of the user's 10: 9 repeats are let in, each from the answer's first event.
    const repeats: Awaited<ReturnType<ChatStack['openSse']>>[] = [];
    for (let i = 0; i < 9; i++) {
      const r = await send();
      expect(r.res.status).toBe(200);
      expect(await r.next()).toMatchObject({ event: 'start', data: { message_id: messageId } });
      repeats.push(r);
    }
    for (let i = 0; i < 3; i++) {
      const over = await stack.api('POST', path, { user: u, body: { message: 'once' }, headers: { 'idempotency-key': 'k-1' } });
      expect(over.status, over.text).toBe(429);
      expect(over.body).toMatchObject({ limit: 10, message: expect.stringContaining('At most 10 live answer streams') });
    }
    // A resume is held back the same way.
    expect((await stack.api('GET', `${path}/${messageId}/stream`, { user: u })).status).toBe(429);
    stack.model.release();
    for (const r of [first, ...repeats]) expect((await r.rest()).at(-1)).toMatchObject({ event: 'done', data: { status: 'complete' } });
    expect(stack.model.requests.length - calls).toBe(1);
    // Every stream ended: a repeat is let in again, and streams the finished answer.
    const after = await stack.api('POST', path, { user: u, body: { message: 'once' }, headers: { 'idempotency-key': 'k-1' } });
    expect(after.status).toBe(200);
    expect(after.text).toContain('event: done');
  });
});
