/**
 * The per-user daily token budget through the gateway: the usage the model reports (the local OpenAI stand-in's
 * usage chunk) is counted once per answer, shows in GET /api/ai-chat/limits, and a send once the day's tokens
 * reached the budget is a 429 naming it (English and Russian), with no model call; the next Moscow day starts over.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStack, startChatStack } from '../support/chat-stack.js';

let stack: ChatStack;

beforeAll(async () => {
  stack = await startChatStack('chattok', { tokenBudgets: { free: 1000, paid: null } });
}, 120_000);
afterAll(() => stack?.close());

const DAY_END = '2026-05-05T21:00:00.000Z'; // the next midnight in Moscow

describe('daily token budget', () => {
  it('counts the model usage once per answer, shows it in the limits, and refuses a send over it with a 429 that names it', async () => {
    const user = `tok-${randomUUID().slice(0, 8)}`;
    stack.clock.now = new Date('2026-05-05T10:00:00Z');
    try {
      const chatId = await stack.createChat(user);
      const fresh = await stack.api('GET', '/api/ai-chat/limits', { user });
      expect(fresh.body.tokens).toEqual({ limit: 1000, used: 0, remaining: 1000, period: 'day', resets_at: DAY_END });

      stack.model.queue.push({ chunks: ['One', ' answer.'], usage: { prompt_tokens: 600, completion_tokens: 100 } });
      const first = await (await stack.openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'first' } })).rest();
      expect(first.at(-1)).toMatchObject({ event: 'done', data: { usage: { prompt_tokens: 600, completion_tokens: 100, total_tokens: 700, estimated: false } } });
      // The model was asked for its usage, as the API wants it asked.
      expect(stack.model.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
      const after1 = await stack.api('GET', '/api/ai-chat/limits', { user });
      expect(after1.body.tokens).toEqual({ limit: 1000, used: 700, remaining: 300, period: 'day', resets_at: DAY_END });

      // Under the budget a send goes ahead; the answer that crosses it is not cut.
      stack.model.queue.push({ chunks: ['Two.'], usage: { prompt_tokens: 250, completion_tokens: 100 } });
      const second = await (await stack.openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'second' } })).rest();
      expect(second.at(-1)).toMatchObject({ event: 'done', data: { status: 'complete' } });
      const after2 = await stack.api('GET', '/api/ai-chat/limits', { user });
      expect(after2.body.tokens).toMatchObject({ limit: 1000, used: 1050, remaining: 0 });
      // Each answer is counted once (its usage was written as it arrived and again when it settled).
      const rows = await stack.chatDb.query<{ n: number; total: number }>('select count(*)::int as n, sum(total_tokens)::int as total from chat_token_usage where user_id = $1', [user]);
      expect(rows[0]).toEqual({ n: 2, total: 1050 });

      const calls = stack.model.requests.length;
      const en = await stack.api('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'third' }, headers: { 'accept-language': 'en' } });
      expect(en.status).toBe(429);
      expect(en.body).toEqual({
        message: `Your daily token budget of 1000 tokens is used up. It resets at ${DAY_END}.`,
        code: 'token_budget',
        limit: 1000,
        resets_at: DAY_END,
      });
      const ru = await stack.api('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'третий' }, headers: { 'accept-language': 'ru' } });
      expect(ru.status).toBe(429);
      expect(ru.body).toMatchObject({ code: 'token_budget', limit: 1000, resets_at: DAY_END });
      expect(ru.body.message).toBe(`Дневной бюджет токенов (1000) израсходован. Он обновится в ${DAY_END}.`);
      // Refused before anything: no model call, no message stored or counted against the message limit.
      expect(stack.model.requests.length).toBe(calls);
      const limits = await stack.api('GET', '/api/ai-chat/limits', { user });
      expect(limits.body.data.find((l: { context_type: string }) => l.context_type === 'support')).toMatchObject({ used: 2 });
      expect((await stack.api('GET', `/api/ai-chat/${chatId}`, { user })).body.data.messages).toHaveLength(4);

      // A new Moscow day: the budget starts over.
      stack.clock.now = new Date(DAY_END);
      const next = await (await stack.openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'new day' } })).rest();
      expect(next.at(-1)).toMatchObject({ event: 'done' });
      const nextLimits = await stack.api('GET', '/api/ai-chat/limits', { user });
      expect(nextLimits.body.tokens).toMatchObject({ limit: 1000, remaining: 1000 - nextLimits.body.tokens.used, resets_at: '2026-05-06T21:00:00.000Z' });
      expect(nextLimits.body.tokens.used).toBeGreaterThan(0);
      expect(nextLimits.body.tokens.used).toBeLessThan(1000);
    } finally {
      stack.clock.now = new Date();
    }
  });

  it('counts every model call of an answer: a tool round and the answer after it', async () => {
    const user = `tok-${randomUUID().slice(0, 8)}`;
    const chatId = await stack.createChat(user);
    const calls = stack.model.requests.length;
    stack.model.queue.push({ toolCalls: [{ name: 'list_portfolios', arguments: {} }], usage: { prompt_tokens: 120, completion_tokens: 15 } });
    stack.model.queue.push({ chunks: ['You have no portfolios yet.'], usage: { prompt_tokens: 300, completion_tokens: 20 } });
    const events = await (await stack.openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'what do I hold?' } })).rest();
    expect(stack.model.requests.length).toBe(calls + 2);
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { usage: { prompt_tokens: 420, completion_tokens: 35, total_tokens: 455, estimated: false } } });
    expect((await stack.api('GET', '/api/ai-chat/limits', { user })).body.tokens).toMatchObject({ used: 455, remaining: 545 });
    const rows = await stack.chatDb.query<{ n: number }>('select count(*)::int as n from chat_token_usage where user_id = $1', [user]);
    expect(rows[0]!.n).toBe(1);
  });

  it('counts an estimate when the server sends no usage, and nothing for a call that failed before any answer', async () => {
    const user = `tok-${randomUUID().slice(0, 8)}`;
    const chatId = await stack.createChat(user);
    stack.model.queue.push({ status: 500 });
    const failed = await (await stack.openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'fails' } })).rest();
    expect(failed.at(-1)).toMatchObject({ event: 'error' });
    expect((await stack.api('GET', '/api/ai-chat/limits', { user })).body.tokens.used).toBe(0);

    stack.model.queue.push({ chunks: ['No', ' usage.'], usage: false });
    const done = await (await stack.openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'no usage please' } })).rest();
    const usage = done.at(-1)!.data.usage;
    expect(usage).toMatchObject({ estimated: true });
    expect(usage.total_tokens).toBeGreaterThan(0);
    expect((await stack.api('GET', '/api/ai-chat/limits', { user })).body.tokens.used).toBe(usage.total_tokens);
  });
});
