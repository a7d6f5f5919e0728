/**
 * Probes of the AI chat (CRUD, isolation, context validation, ratings, stop, limits) through the
 * real gateway, chat, portfolios, screener and billing services over real NATS and Postgres.
 */
import { randomUUID } from 'node:crypto';
import { eventuallyTruthy } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import type { ApiOptions } from '../support/gateway-api.js';
import { type ChatStack, CP_SECRET, startChatStack } from '../support/chat-stack.js';

let stack: ChatStack;
const ALICE = `probe-alice-${randomUUID().slice(0, 8)}`;
const BOB = `probe-bob-${randomUUID().slice(0, 8)}`;

const api = (method: string, path: string, opts: ApiOptions = {}) => stack.api(method, path, { ...opts, user: opts.user ?? ALICE });
const openSse = (method: string, path: string, opts: { user?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  stack.openSse(method, path, { ...opts, user: opts.user ?? ALICE });

const createChat = (user: string, body: Record<string, unknown>) => stack.createChat(user, body);
const send = async (user: string, chatId: string, message: string, extra: Record<string, unknown> = {}) =>
  (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message, ...extra } })).rest();
const limitOf = async (user: string, type: string) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (await api('GET', '/api/ai-chat/limits', { user })).body.data.find((l: any) => l.context_type === type);

let alicePortfolio: number;

beforeAll(async () => {
  stack = await startChatStack('advchat1', { heartbeatMs: 200 });
  const p = await api('POST', '/api/portfolios', { body: { name: 'Main', currency_code: 'RUB' } });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  alicePortfolio = p.body.data.id;
  const d = await api('POST', `/api/portfolios/${alicePortfolio}/deals`, {
    body: { type: 'buy', assetable: { type: 'share', id: stack.full.shareIds.SBER }, quantity: 10, price: 250, commission: 1, date: '2024-01-10' },
  });
  expect(d.status, JSON.stringify(d.body)).toBe(201);
}, 120_000);
afterAll(() => stack?.close());

describe('context types and context_id / context_data validation', () => {
  it('context_id of every odd shape is a 422 on context_id (never a 500)', async () => {
    for (const context_id of [-1, 1.5, true, {}, [], 1e20, '1e3', ' 1', '0', '999999999999999', 'x'.repeat(65), '١٢']) {
      const r = await api('POST', '/api/ai-chat', { body: { context_type: 'portfolio_health', context_id } });
      expect(r.status, `${JSON.stringify(context_id)} -> ${JSON.stringify(r.body)}`).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(context_id)).toContain('context_id');
    }
    for (const context_type of [null, 5, '', 'x'.repeat(65), 'PORTFOLIO_HEALTH', 'support ']) {
      const r = await api('POST', '/api/ai-chat', { body: { context_type } });
      expect(r.status, `${JSON.stringify(context_type)} -> ${JSON.stringify(r.body)}`).toBe(422);
      expect(Object.keys(r.body.errors)).toContain('context_type');
    }
    // support with a context id is a 422 on context_id.
    const s = await api('POST', '/api/ai-chat', { body: { context_type: 'support', context_id: 5 } });
    expect(s.status).toBe(422);
    expect(Object.keys(s.body.errors)).toEqual(['context_id']);
  });

  it("another user's portfolio is a 422 that looks like a missing one", async () => {
    const foreign = await api('POST', '/api/ai-chat', { user: BOB, body: { context_type: 'portfolio_health', context_id: alicePortfolio } });
    const missing = await api('POST', '/api/ai-chat', { user: BOB, body: { context_type: 'portfolio_health', context_id: 987654321 } });
    expect(foreign.status).toBe(422);
    expect(foreign.body).toEqual(missing.body);
  });

  it('context_data of the wrong shape is a 422 naming context_data (never a 500)', async () => {
    const chatId = await createChat(ALICE, { context_type: 'portfolio_health', context_id: alicePortfolio });
    const cases: [unknown, string][] = [
      [[1, 2], 'context_data'],
      ['str', 'context_data'],
      [5, 'context_data'],
      [{ volatility: '0.2' }, 'context_data.volatility'],
      [{ max_drawdown: 1e7 }, 'context_data.max_drawdown'],
      [{ volatility: true }, 'context_data.volatility'],
      [{ pad: 'x'.repeat(17_000) }, 'context_data'],
    ];
    for (const [context_data, field] of cases) {
      const r = await api('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'q', context_data } });
      expect(r.status, `${JSON.stringify(context_data).slice(0, 60)} -> ${JSON.stringify(r.body).slice(0, 300)}`).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(context_data).slice(0, 60)).toContain(field);
    }
    // Nothing was stored or charged by the refused sends.
    expect((await api('GET', `/api/ai-chat/${chatId}`)).body.data.messages).toEqual([]);
    expect((await limitOf(ALICE, 'portfolio_health')).used).toBe(0);
  });

  it('a deeply nested context_data (within the body limit) is a 422, not a 500', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    const depth = 100_000;
    const raw = `{"message":"q","context_data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const r = await api('POST', `/api/ai-chat/${chatId}/messages`, { raw: raw });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).not.toBe(500);
    expect([413, 422, 400]).toContain(r.status);
  });

  it('a chat whose portfolio was deleted: the send is refused without a 500 and nothing is charged', async () => {
    const p = (await api('POST', '/api/portfolios', { body: { name: 'Gone', currency_code: 'USD' } })).body.data.id;
    const chatId = await createChat(ALICE, { context_type: 'portfolio_health', context_id: p });
    expect((await api('DELETE', `/api/portfolios/${p}`)).status).toBe(204);
    const before = (await limitOf(ALICE, 'portfolio_health')).used;
    const r = await api('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'how is it?' } });
    expect(r.status).not.toBe(500);
    expect(r.status).toBeLessThan(500);
    expect((await limitOf(ALICE, 'portfolio_health')).used).toBe(before);
    // The chat itself is still readable.
    expect((await api('GET', `/api/ai-chat/${chatId}`)).status).toBe(200);
  });
});

describe('list / read / rename / delete', () => {
  it('paging parameters: bad ones are 422s, a page past the end is empty with a true total', async () => {
    const user = `probe-pager-${randomUUID().slice(0, 8)}`;
    for (let i = 0; i < 3; i++) await createChat(user, { context_type: 'support' });
    for (const q of ['page=0', 'per_page=0', 'per_page=101', 'page=abc', 'page=-1', 'per_page=1.5', 'page=1&page=2', 'page=99999999999999999999']) {
      const r = await api('GET', `/api/ai-chat?${q}`, { user });
      expect(r.status, `${q} -> ${JSON.stringify(r.body)}`).toBe(422);
    }
    const far = await api('GET', '/api/ai-chat?page=50&per_page=2', { user });
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
    expect(far.body.meta).toMatchObject({ total: 3, last_page: 2, current_page: 50, from: null, to: null });
    const last = await api('GET', '/api/ai-chat?page=2&per_page=2', { user });
    expect(last.body.data).toHaveLength(1);
    expect(last.body.meta).toMatchObject({ total: 3, from: 3, to: 3 });
  });

  it('titles: 255 characters ok, 256 a 422, Unicode kept exactly', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    const t255 = 'Ж'.repeat(255);
    expect((await api('PATCH', `/api/ai-chat/${chatId}`, { body: { title: t255 } })).body.data.title).toBe(t255);
    const big = await api('PATCH', `/api/ai-chat/${chatId}`, { body: { title: 'x'.repeat(256) } });
    expect(big.status).toBe(422);
    expect(Object.keys(big.body.errors)).toEqual(['title']);
    const uni = '📈 Портфель «Рост» — 日本株 👨‍👩‍👧';
    expect((await api('PATCH', `/api/ai-chat/${chatId}`, { body: { title: uni } })).body.data.title).toBe(uni);
    expect((await api('GET', `/api/ai-chat/${chatId}`)).body.data.title).toBe(uni);
    for (const title of [null, 5, '   ', 'a\u0000b', '\ud800']) {
      const r = await api('PATCH', `/api/ai-chat/${chatId}`, { body: { title } });
      expect(r.status, JSON.stringify(title)).toBe(422);
    }
  });

  it('the title made from the first message never holds half of an emoji (no U+FFFD)', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    // No spaces: the title is cut at character 59, which here is the high half of a surrogate pair.
    const message = `${'a'.repeat(58)}${'😀'.repeat(10)}`;
    const events = await send(ALICE, chatId, message);
    expect(events.at(-1)!.event).toBe('done');
    const title = (await api('GET', `/api/ai-chat/${chatId}`)).body.data.title as string;
    expect(title).not.toContain('\uFFFD');
    expect(title.startsWith('a'.repeat(58))).toBe(true);
  });

  it("another user's chat and message ids are 404 on every route; a foreign message id in one's own chat is 404", async () => {
    const aliceChat = await createChat(ALICE, { context_type: 'support' });
    const events = await send(ALICE, aliceChat, 'mine');
    const { message_id: aliceAnswer, user_message_id: aliceQuestion } = events[0]!.data;
    const bobChat = await createChat(BOB, { context_type: 'support' });
    const routes: [string, string, unknown][] = [
      ['GET', `/api/ai-chat/${aliceChat}`, undefined],
      ['PATCH', `/api/ai-chat/${aliceChat}`, { title: 'x' }],
      ['POST', `/api/ai-chat/${aliceChat}/messages`, { message: 'x' }],
      ['GET', `/api/ai-chat/${aliceChat}/messages/${aliceAnswer}/stream`, undefined],
      ['POST', `/api/ai-chat/${aliceChat}/messages/${aliceAnswer}/stop`, undefined],
      ['POST', `/api/ai-chat/${aliceChat}/messages/${aliceAnswer}/rating`, { rating: 'like' }],
      // Bob's own chat with Alice's message ids.
      ['GET', `/api/ai-chat/${bobChat}/messages/${aliceAnswer}/stream`, undefined],
      ['POST', `/api/ai-chat/${bobChat}/messages/${aliceAnswer}/stop`, undefined],
      ['POST', `/api/ai-chat/${bobChat}/messages/${aliceAnswer}/rating`, { rating: 'like' }],
      ['POST', `/api/ai-chat/${bobChat}/messages/${aliceQuestion}/rating`, { rating: 'like' }],
      ['DELETE', `/api/ai-chat/${aliceChat}`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const r = await api(method, path, { user: BOB, body });
      expect(r.status, `${method} ${path} -> ${JSON.stringify(r.body)}`).toBe(404);
      expect(JSON.stringify(r.body)).not.toContain(ALICE);
    }
    // Alice's data is untouched.
    const mine = (await api('GET', `/api/ai-chat/${aliceChat}`)).body.data;
    expect(mine.title).toBe('mine');
    expect(mine.messages[1]).toMatchObject({ rating: null, status: 'complete' });
  });

});

describe('ratings', () => {
  it('rating again replaces; a user message, a missing rating, a bad comment are 422s', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    const events = await send(ALICE, chatId, 'rate');
    const { message_id, user_message_id } = events[0]!.data;
    const url = (id: string) => `/api/ai-chat/${chatId}/messages/${id}/rating`;
    expect((await api('POST', url(message_id), { body: { rating: 'like', rating_comment: 'good' } })).body.data).toMatchObject({ rating: 'like', rating_comment: 'good' });
    expect((await api('POST', url(message_id), { body: { rating: 'dislike', rating_comment: 'changed my mind' } })).body.data).toMatchObject({
      rating: 'dislike',
      rating_comment: 'changed my mind',
    });
    for (const body of [{}, { rating: null }, { rating: 'LIKE' }, { rating: 'like', rating_comment: 5 }, { rating: 'like', rating_comment: 'x'.repeat(1001) }]) {
      const r = await api('POST', url(message_id), { body });
      expect(r.status, JSON.stringify(body)).toBe(422);
    }
    const onUser = await api('POST', url(user_message_id), { body: { rating: 'like' } });
    expect(onUser.status).toBe(422);
    expect(Object.keys(onUser.body.errors)).toEqual(['message_id']);
    expect((await api('POST', url(randomUUID()), { body: { rating: 'like' } })).status).toBe(404);
    expect((await api('POST', url('nope'), { body: { rating: 'like' } })).status).toBe(404);
    // Concurrent ratings: no 500, one of them wins.
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => api('POST', url(message_id), { body: { rating: i % 2 ? 'like' : 'dislike' } })));
    for (const r of rs) expect(r.status).toBe(200);
  });
});

describe('stop', () => {
  it('stopping a finished answer changes nothing, twice; a failed one stays failed and uncharged; a user message is a 422', async () => {
    const user = `probe-stop-${randomUUID().slice(0, 8)}`;
    const chatId = await createChat(user, { context_type: 'support' });
    const done = await send(user, chatId, 'finish');
    const answer = done[0]!.data.message_id;
    for (let i = 0; i < 2; i++) {
      const r = await api('POST', `/api/ai-chat/${chatId}/messages/${answer}/stop`, { user });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ status: 'complete', content: 'Hello from the model.' });
    }
    expect((await limitOf(user, 'support')).used).toBe(1);
    stack.model.queue.push({ status: 500 });
    const failed = await send(user, chatId, 'fail');
    const failedId = failed[0]!.data.message_id;
    const r = await api('POST', `/api/ai-chat/${chatId}/messages/${failedId}/stop`, { user });
    expect(r.body.data.status).toBe('failed');
    expect((await limitOf(user, 'support')).used).toBe(1);
    const q = await api('POST', `/api/ai-chat/${chatId}/messages/${failed[0]!.data.user_message_id}/stop`, { user });
    expect(q.status).toBe(422);
  });

  it('a stopped answer counts, even stopped at its first event (the model was asked); only one that failed before the model sent anything is given back', async () => {
    const user = `probe-stop2-${randomUUID().slice(0, 8)}`;
    const chatId = await createChat(user, { context_type: 'support' });
    const requests = stack.model.requests.length;
    // Failed before the model sent anything (an HTTP 500; an error payload before the first chunk): given back.
    stack.model.queue.push({ status: 500 }, { chunks: ['never'], errorAfter: 0 });
    for (const message of ['fail at once', 'fail before a chunk']) expect((await send(user, chatId, message)).at(-1)?.event).toBe('error');
    expect((await limitOf(user, 'support')).used).toBe(0);
    // Failed after the model sent part of its answer: the call was made and paid for, so it counts.
    stack.model.queue.push({ chunks: ['Half ', 'an answer'], errorAfter: 1 });
    expect((await send(user, chatId, 'fail halfway')).at(-1)?.event).toBe('error');
    expect((await limitOf(user, 'support')).used).toBe(1);
    // Each answer stopped at its first event once the model has the request (twice at once for the first: harmless).
    for (let i = 2; i <= 10; i++) {
      stack.model.queue.push({ chunks: ['only'], holdLast: true });
      const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: `stop me ${i}` } });
      const id = (await sse.next())!.data.message_id;
      await stack.model.waitForRequest(requests + 2 + i);
      const stops = await Promise.all(Array.from({ length: i === 2 ? 2 : 1 }, () => api('POST', `/api/ai-chat/${chatId}/messages/${id}/stop`, { user })));
      for (const r of stops) expect(r.body.data).toMatchObject({ status: 'stopped', content: '' });
      await sse.rest();
      expect((await limitOf(user, 'support')).used).toBe(i);
    }
    expect(stack.model.requests.length).toBe(requests + 12);
    // The free limit (10) is used up by them: the next send is refused before any model call.
    const over = await api('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'one more' } });
    expect(over.status, JSON.stringify(over.body)).toBe(429);
    expect(stack.model.requests.length).toBe(requests + 12);
  });

  it('an orphaned answer sent at 23:59:59.999 MSK is charged to the day of its row (the next one), and a stop keeps it charged there', async () => {
    const user = `probe-mid-${randomUUID().slice(0, 8)}`;
    const chatId = await createChat(user, { context_type: 'support' });
    stack.clock.now = new Date('2026-03-10T20:59:59.999Z'); // 23:59:59.999 in Moscow
    try {
      stack.model.queue.push({ chunks: ['never'], holdLast: true });
      const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'late' } });
      const id = (await sse.next())!.data.message_id as string;
      const usage = () => stack.chatDb.query<{ period_start: Date; used: number }>('select period_start, used from chat_usage where user_id = $1 order by period_start', [user]);
      // The answer's row is a millisecond later, at 00:00 on March 11 in Moscow: that day is charged.
      expect((await usage()).map((r) => [new Date(r.period_start).toISOString(), r.used])).toEqual([['2026-03-10T21:00:00.000Z', 1]]);
      // The instance generating the answer dies (SIGKILL): nothing generates it any more.
      (stack.chat.generator as unknown as { running: Map<string, unknown> }).running.delete(id);
      const stopped = await api('POST', `/api/ai-chat/${chatId}/messages/${id}/stop`, { user });
      expect(stopped.body.data).toMatchObject({ status: 'stopped', content: '' });
      sse.drop();
      stack.model.release();
      // Stopped, it stays counted, on the day it was reserved in.
      expect((await usage()).map((r) => [new Date(r.period_start).toISOString(), r.used])).toEqual([['2026-03-10T21:00:00.000Z', 1]]);
    } finally {
      stack.clock.now = new Date();
    }
  });
});

describe('limits and plans', () => {
  it('GET /limits: free limits per context, separate counters, one reset time at the next Moscow midnight', async () => {
    const user = `probe-lim-${randomUUID().slice(0, 8)}`;
    stack.clock.now = new Date('2026-06-01T20:30:00Z'); // 23:30 MSK
    try {
      const l = await api('GET', '/api/ai-chat/limits', { user });
      expect(l.status).toBe(200);
      expect(l.body.data).toEqual([
        { context_type: 'portfolio_health', limit: 5, used: 0, remaining: 5, period: 'day', resets_at: '2026-06-01T21:00:00.000Z' },
        { context_type: 'support', limit: 10, used: 0, remaining: 10, period: 'day', resets_at: '2026-06-01T21:00:00.000Z' },
      ]);
    } finally {
      stack.clock.now = new Date();
    }
  });

  it('concurrent sends across several chats of one context cannot overshoot the free limit; limits agree with the stored answers', async () => {
    const user = `probe-race-${randomUUID().slice(0, 8)}`;
    const chats = await Promise.all([0, 1, 2].map(() => createChat(user, { context_type: 'support' })));
    const statuses = await Promise.all(
      Array.from({ length: 14 }, async (_, i) => {
        const sse = await openSse('POST', `/api/ai-chat/${chats[i % 3]}/messages`, { user, body: { message: `r${i}` } });
        const events = await sse.rest();
        return { status: sse.res.status, last: events.at(-1) };
      }),
    );
    expect(statuses.filter((s) => s.status === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s.status === 429)).toHaveLength(4);
    const [row] = await stack.chatDb.query<{ n: number }>(
      "select count(*)::int as n from chat_messages where user_id = $1 and role = 'assistant' and status = 'complete'",
      [user],
    );
    expect(row!.n).toBe(10);
    expect(await limitOf(user, 'support')).toMatchObject({ used: 10, remaining: 0 });
    // The other context is untouched.
    expect(await limitOf(user, 'portfolio_health')).toMatchObject({ used: 0, remaining: 5 });
  });

  it('a paid user gets the paid limit in both contexts', async () => {
    const user = `probe-paid-${randomUUID().slice(0, 8)}`;
    const paid = await sendSignedNotification(
      new URL('/api/provider/payment-success', stack.base).toString(),
      payNotificationFields({ TransactionId: Math.floor(3e9 + Math.random() * 1e9), Amount: 299, Currency: 'RUB', InvoiceId: null, AccountId: user, Status: 'Completed', SubscriptionId: null, TestMode: true }),
      CP_SECRET,
    );
    expect(paid.status, paid.body).toBe(200);
    const l = await eventuallyTruthy(async () => {
      const r = (await api('GET', '/api/ai-chat/limits', { user })).body.data;
      return r[0].limit === 200 && r;
    }, 'paid limits');
    expect(l.map((x: { limit: number }) => x.limit)).toEqual([200, 200]);
  });

  it('each message gets the limit of the plan in force when it is sent: paid until the paid access ends, free from then on, the same day', async () => {
    const user = `probe-ends-${randomUUID().slice(0, 8)}`;
    const chatId = await createChat(user, { context_type: 'support' });
    const setClocks = (at: Date) => {
      stack.clock.now = at;
      stack.billingClock.now = at;
    };
    try {
      setClocks(new Date('2026-04-10T09:00:00Z'));
      const paid = await sendSignedNotification(
        new URL('/api/provider/payment-success', stack.base).toString(),
        payNotificationFields({ TransactionId: Math.floor(3e9 + Math.random() * 1e9), Amount: 299, Currency: 'RUB', InvoiceId: null, AccountId: user, Status: 'Completed', SubscriptionId: null, TestMode: true }),
        CP_SECRET,
      );
      expect(paid.status, paid.body).toBe(200);
      await eventuallyTruthy(async () => (await limitOf(user, 'support')).limit === 200, 'paid limits');
      const endsAt = new Date((await api('GET', '/api/subscription', { user })).body.data.ends_at);
      // Half an hour before the paid access ends (midday in Moscow): more messages than the free plan allows.
      setClocks(new Date(endsAt.getTime() - 30 * 60_000));
      for (let i = 0; i < 11; i++) expect((await send(user, chatId, `paid ${i}`)).at(-1)?.event).toBe('done');
      expect(await limitOf(user, 'support')).toMatchObject({ limit: 200, used: 11 });
      // A minute after it ended, the same day: no billing event says so; the free limit applies to this message.
      setClocks(new Date(endsAt.getTime() + 60_000));
      const requests = stack.model.requests.length;
      const over = await api('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'after the end' } });
      expect(over.status, JSON.stringify(over.body)).toBe(429);
      expect(over.body).toMatchObject({ limit: 10 });
      expect(stack.model.requests.length).toBe(requests);
      expect(await limitOf(user, 'support')).toMatchObject({ limit: 10, used: 11, remaining: 0 });
    } finally {
      stack.clock.now = new Date();
      stack.billingClock.now = null;
    }
  });

});
