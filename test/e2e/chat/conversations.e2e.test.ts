/**
 * The AI chat through HTTP: the real gateway, chat, portfolios, screener and billing services over real NATS
 * and Postgres, with a local OpenAI-compatible server speaking the streaming wire format. Covers streaming
 * as produced, drop + Last-Event-ID resume, stop reaching the model server, the 50-message history, the
 * portfolio_health prompt, limits with an injected clock, failed calls, usage estimation, isolation,
 * ratings and CRUD.
 */
import { randomUUID } from 'node:crypto';
import { busName, busSubject } from '@invest/platform';
import { eventuallyTruthy } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { type ChatStack, CP_SECRET, startChatStack } from '../support/chat-stack.js';
import { eventKinds } from '../support/sse-reader.js';

let stack: ChatStack;
const ALICE = `alice-${randomUUID().slice(0, 8)}`;
const BOB = `bob-${randomUUID().slice(0, 8)}`;

const api = (method: string, path: string, opts: { user?: string; body?: unknown } = {}) => stack.api(method, path, { ...opts, user: opts.user ?? ALICE });
const openSse = (method: string, path: string, opts: { user?: string; body?: unknown; lastEventId?: string } = {}) =>
  stack.openSse(method, path, { user: opts.user ?? ALICE, body: opts.body, headers: opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {} });

const createChat = (user: string, body: Record<string, unknown>) => stack.createChat(user, body);
const messageStatus = async (id: string) => (await stack.chatDb.query<{ status: string }>('select status from chat_messages where id = $1', [id]))[0]?.status;

let rubPortfolio: number;
let usdPortfolio: number;

beforeAll(async () => {
  stack = await startChatStack('chat', { heartbeatMs: 60, requestTimeoutMs: 1500 });
  const p = await api('POST', '/api/portfolios', { body: { name: 'Main', currency_code: 'RUB' } });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  rubPortfolio = p.body.data.id;
  const d = await api('POST', `/api/portfolios/${rubPortfolio}/deals`, {
    body: { type: 'buy', assetable: { type: 'share', id: stack.full.shareIds.SBER }, quantity: 10, price: 250, commission: 1, date: '2024-01-10' },
  });
  expect(d.status, JSON.stringify(d.body)).toBe(201);
  usdPortfolio = (await api('POST', '/api/portfolios', { body: { name: 'Dollars', currency_code: 'USD' } })).body.data.id;
}, 120_000);
afterAll(() => stack?.close());

describe('chats (CRUD, isolation)', () => {
  it('creates, lists, reads, renames and deletes; another user gets 404; bad input is a 422', async () => {
    const support = await createChat(ALICE, { context_type: 'support' });
    const health = await createChat(ALICE, { context_type: 'portfolio_health', context_id: rubPortfolio });
    expect((await api('POST', '/api/ai-chat', { body: { context_type: 'horoscope' } })).status).toBe(422);
    const noId = await api('POST', '/api/ai-chat', { body: { context_type: 'portfolio_health' } });
    expect(noId.status).toBe(422);
    expect(noId.body.errors.context_id).toBeDefined();
    // Bob cannot open a chat on Alice's portfolio.
    const foreign = await api('POST', '/api/ai-chat', { user: BOB, body: { context_type: 'portfolio_health', context_id: rubPortfolio } });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors.context_id).toEqual(['The selected context id is invalid.']);

    const list = await api('GET', '/api/ai-chat?per_page=1');
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ per_page: 1, total: 2, last_page: 2 });
    expect(list.body.links.next).toContain('page=2');
    expect((await api('GET', '/api/ai-chat', { user: BOB })).body.data).toEqual([]);

    const got = await api('GET', `/api/ai-chat/${health}`);
    expect(got.body.data).toMatchObject({ id: health, context_type: 'portfolio_health', context_id: String(rubPortfolio), title: null, messages: [] });
    for (const [method, path, body] of [
      ['GET', `/api/ai-chat/${health}`, undefined],
      ['PATCH', `/api/ai-chat/${health}`, { title: 'x' }],
      ['DELETE', `/api/ai-chat/${health}`, undefined],
      ['POST', `/api/ai-chat/${health}/messages`, { message: 'hi' }],
    ] as const) {
      expect((await api(method, path, { user: BOB, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await api('GET', '/api/ai-chat/not-a-uuid')).status).toBe(404);

    const renamed = await api('PATCH', `/api/ai-chat/${support}`, { body: { title: '  Help  ' } });
    expect(renamed.body.data.title).toBe('Help');
    expect((await api('PATCH', `/api/ai-chat/${support}`, { body: { title: '' } })).status).toBe(422);
    expect((await api('DELETE', `/api/ai-chat/${support}`)).status).toBe(204);
    expect((await api('GET', `/api/ai-chat/${support}`)).status).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('documents every chat route, the event stream and the 429', async () => {
    const doc = (await (await fetch(new URL('/api/docs-json', stack.base))).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const routes: [string, string][] = [
      ['/api/ai-chat', 'post'],
      ['/api/ai-chat', 'get'],
      ['/api/ai-chat/limits', 'get'],
      ['/api/ai-chat/{id}', 'get'],
      ['/api/ai-chat/{id}', 'patch'],
      ['/api/ai-chat/{id}', 'delete'],
      ['/api/ai-chat/{id}/messages', 'post'],
      ['/api/ai-chat/{id}/messages/{messageId}/stream', 'get'],
      ['/api/ai-chat/{id}/messages/{messageId}/stop', 'post'],
      ['/api/ai-chat/{id}/messages/{messageId}/rating', 'post'],
    ];
    for (const [path, method] of routes) expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(Object.keys(doc.paths['/api/ai-chat/{id}/messages']!.post!.responses)).toEqual(expect.arrayContaining(['200', '404', '422', '429']));
  });
});

describe('streaming an answer', () => {
  it('relays chunks as the model produces them, then done with usage; the chat gets a title and the stored answer', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    stack.model.queue.push({ chunks: ['Alerts ', 'fire ', 'on ', 'prices.'], holdLast: true });
    const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'How do alerts work?\nThanks' } });
    expect(sse.res.headers.get('content-type')).toContain('text/event-stream');
    const start = await sse.next();
    expect(start?.event).toBe('start');
    const first = await sse.next();
    expect(first).toMatchObject({ event: 'chunk', data: { content: 'Alerts ' } });
    // The server still holds its last chunk: the client saw the first one before the last was sent.
    const req = stack.model.requests.at(-1)!;
    expect(req.sent).toBeLessThan(4);
    expect(req.body.stream_options).toEqual({ include_usage: true });
    stack.model.release();
    const rest = await sse.rest();
    const all = [start!, first!, ...rest];
    expect(all.every((e) => e.id && /^\d+$/.test(e.id))).toBe(true);
    expect(all.map((e) => Number(e.id))).toEqual([...all.map((e) => Number(e.id))].sort((a, b) => a - b));
    expect(all.filter((e) => e.event === 'chunk').map((e) => e.data.content).join('')).toBe('Alerts fire on prices.');
    const done = all.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data).toMatchObject({ message_id: start!.data.message_id, status: 'complete', usage: { completion_tokens: 4, estimated: false }, remaining: 9 });

    const chat = (await api('GET', `/api/ai-chat/${chatId}`)).body.data;
    expect(chat.title).toBe('How do alerts work?');
    expect(chat.messages.map((m: { role: string; status: string; content: string }) => [m.role, m.status, m.content])).toEqual([
      ['user', 'complete', 'How do alerts work?\nThanks'],
      ['assistant', 'complete', 'Alerts fire on prices.'],
    ]);
    expect(chat.messages[1].latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('sends heartbeat comments while the model is silent, and streams longer than the HTTP request timeout', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    // 2.4 s of answer against a 1.5 s whole-request timeout (HTTP_REQUEST_TIMEOUT_MS) in this stack.
    stack.model.queue.push({ chunks: ['a', 'b', 'c'], delayMs: 800 });
    const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'ping?' } });
    const events = await sse.rest();
    expect(sse.raw).toContain(': ping\n\n');
    expect(events.filter((e) => e.event === 'chunk').map((e) => e.data.content).join('')).toBe('abc');
    expect(events.at(-1)!.event).toBe('done');
  });

  it('streams the whole answer when JetStream holds no stream for a while (a NATS node lost, a leader election)', async () => {
    const user = `carol-${randomUUID().slice(0, 8)}`;
    const chatId = await createChat(user, { context_type: 'support' });
    // Found by the chaos test: opening the answer's consumer failed at once and the client got a 500
    // although its message was sent; and the answer's own events were lost.
    const name = busName(stack.full.busPrefix, 'CHAT_STREAMS');
    const config = (await stack.chat.bus.jsm.streams.info(name)).config;
    await stack.chat.bus.jsm.streams.delete(name);
    stack.model.queue.push({ chunks: ['Back ', 'again.'] });
    const back = setTimeout(() => void stack.chat.bus.jsm.streams.add(config), 1500);
    try {
      const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'still there?' } });
      expect(sse.res.status).toBe(200);
      const events = await sse.rest();
      expect(eventKinds(events)).toEqual(['start', 'chunk', 'done']);
      expect(events.filter((e) => e.event === 'chunk').map((e) => e.data.content).join('')).toBe('Back again.');
    } finally {
      clearTimeout(back);
      await stack.chat.bus.jsm.streams.add(config).catch(() => undefined);
    }
  });

  it('estimates usage, and says so, when the server sends no usage chunk', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    stack.model.queue.push({ chunks: ['No ', 'usage ', 'here.'], usage: false });
    const events = await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'usage?' } })).rest();
    const done = events.at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data.usage.estimated).toBe(true);
    expect(done.data.usage.completion_tokens).toBe(Math.ceil('No usage here.'.length / 4));
  });
});

describe('surviving the connection', () => {
  it('keeps generating after the client drops; Last-Event-ID replays the rest (live, then finished) without repeats or gaps', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    const words = Array.from({ length: 8 }, (_, i) => `w${i} `);
    stack.model.queue.push({ chunks: words, delayMs: 20, holdLast: true });
    const first = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'long answer please' } });
    const start = (await first.next())!;
    const c1 = (await first.next())!;
    const c2 = (await first.next())!;
    first.drop();
    const messageId = start.data.message_id as string;
    const req = stack.model.requests.at(-1)!;
    // Live resume while the model still writes: reconnect from the last id seen.
    await eventuallyTruthy(async () => req.sent >= 5, 'the model to write on');
    const second = await openSse('GET', `/api/ai-chat/${chatId}/messages/${messageId}/stream`, { lastEventId: c2.id! });
    const c3 = (await second.next())!;
    expect(Number(c3.id)).toBeGreaterThan(Number(c2.id));
    second.drop();
    stack.model.release();
    await eventuallyTruthy(async () => (await messageStatus(messageId)) === 'complete', 'the answer to complete');
    expect(req.aborted).toBe(false);
    // Finished: a reconnect replays what this client missed, then closes.
    const third = await (await openSse('GET', `/api/ai-chat/${chatId}/messages/${messageId}/stream`, { lastEventId: c3.id! })).rest();
    const chunks = [c1, c2, c3, ...third.filter((e) => e.event === 'chunk')];
    expect(chunks.map((e) => e.data.content).join('')).toBe(words.join(''));
    expect(new Set(chunks.map((e) => e.id)).size).toBe(chunks.length);
    expect(third.at(-1)!.event).toBe('done');
    // Without Last-Event-ID the whole answer replays.
    const whole = await (await openSse('GET', `/api/ai-chat/${chatId}/messages/${messageId}/stream`)).rest();
    expect(whole[0]!.event).toBe('start');
    expect(whole.filter((e) => e.event === 'chunk').map((e) => e.data.content).join('')).toBe(words.join(''));
    // The chat shows the answer as streaming while it runs (checked above through the DB), complete now.
    expect((await api('GET', `/api/ai-chat/${chatId}/messages/${messageId}/stream`, { user: BOB })).status).toBe(404);
  });

  it('a finished answer whose replay buffer is gone is sent whole from the database', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    stack.model.queue.push({ chunks: ['Stored ', 'for ', 'good.'] });
    const live = await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'keep it' } })).rest();
    const messageId = live[0]!.data.message_id as string;
    await stack.full.bus.jsm.streams.purge(busName(stack.full.busPrefix, 'CHAT_STREAMS'), { filter: busSubject(stack.full.busPrefix, `chat.stream.${messageId}`) });
    const replay = await (await openSse('GET', `/api/ai-chat/${chatId}/messages/${messageId}/stream`, { lastEventId: live[1]!.id! })).rest();
    expect(replay.map((e) => [e.id, e.event])).toEqual([
      ['1', 'start'],
      ['2', 'chunk'],
      ['3', 'done'],
    ]);
    expect(replay[0]!.data).toEqual(live[0]!.data);
    expect(replay[1]!.data.content).toBe('Stored for good.');
    expect(replay[2]!.data).toMatchObject({ message_id: messageId, status: 'complete', usage: { estimated: false } });
  });

  it('stop aborts the request at the model server and keeps the partial answer as stopped', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    stack.model.queue.push({ chunks: ['Partial ', 'answer ', 'never ', 'finished.'], holdLast: true });
    const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'stop me' } });
    const start = (await sse.next())!;
    await sse.next();
    const req = stack.model.requests.at(-1)!;
    await eventuallyTruthy(async () => req.sent >= 3, 'three chunks');
    const messageId = start.data.message_id as string;
    expect((await api('POST', `/api/ai-chat/${chatId}/messages/${messageId}/stop`, { user: BOB })).status).toBe(404);
    const stopped = await api('POST', `/api/ai-chat/${chatId}/messages/${messageId}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.data).toMatchObject({ status: 'stopped', content: 'Partial answer never ' });
    await req.ended;
    expect(req.aborted).toBe(true);
    const rest = await sse.rest();
    expect(rest.at(-1)).toMatchObject({ event: 'done', data: { status: 'stopped' } });
  });
});

describe('deleting a chat', () => {
  it('while a send is on its way: the send is refused (404) and nothing is stored, no model called', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    // The send's own round trips (entitlements, the context) are the window; widened here to be certain.
    const limits = (stack.chat.chat as unknown as { d: { limits: { limitFor: (...a: unknown[]) => Promise<unknown> } } }).d.limits;
    const limitFor = limits.limitFor.bind(limits);
    let entered!: () => void;
    const inSend = new Promise<void>((r) => (entered = r));
    limits.limitFor = async (...a: unknown[]) => {
      entered();
      await new Promise((r) => setTimeout(r, 500));
      return limitFor(...a);
    };
    const calls = stack.model.requests.length;
    try {
      const sending = openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'race' } });
      await inSend;
      expect((await api('DELETE', `/api/ai-chat/${chatId}`)).status).toBe(204);
      expect((await sending).res.status).toBe(404);
    } finally {
      limits.limitFor = limitFor;
    }
    expect(await stack.chatDb.query('select 1 from chat_messages where chat_id = $1', [chatId])).toEqual([]);
    expect(stack.model.requests.length).toBe(calls);
  });

  it('stops its answer still streaming: the model request is aborted, the partial answer kept as stopped', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    stack.model.queue.push({ chunks: ['Half ', 'an ', 'answer ', 'never'], holdLast: true });
    const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'delete me' } });
    const start = (await sse.next())!;
    const req = stack.model.requests.at(-1)!;
    await eventuallyTruthy(async () => req.sent >= 3, 'three chunks');
    expect((await api('DELETE', `/api/ai-chat/${chatId}`)).status).toBe(204);
    await req.ended;
    expect(req.aborted).toBe(true);
    expect((await sse.rest()).at(-1)).toMatchObject({ event: 'done', data: { status: 'stopped' } });
    const [row] = await stack.chatDb.query<{ status: string; content: string }>('select status, content from chat_messages where id = $1', [start.data.message_id]);
    expect(row).toEqual({ status: 'stopped', content: 'Half an answer ' });
  });
});

describe('what the model receives', () => {
  it('gets the system prompt and at most the newest 50 messages', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    // Two days ago: the seeded answers do not count against today's limit.
    const t0 = Date.now() - 2 * 86_400_000;
    for (let i = 0; i < 60; i++) {
      await stack.chatDb.query(
        `insert into chat_messages (id, chat_id, user_id, context_type, role, content, status, created_at)
         values ($1, $2, $3, 'support', $4, $5, 'complete', $6)`,
        [randomUUID(), chatId, ALICE, i % 2 ? 'assistant' : 'user', `old ${i}`, new Date(t0 + i * 1000).toISOString()],
      );
    }
    await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'newest' } })).rest();
    const sent = stack.model.requests.at(-1)!.body.messages;
    expect(sent).toHaveLength(51);
    expect(sent[0]!.role).toBe('system');
    expect(sent[1]!.content).toBe('old 11');
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'newest' });
  });

  it('portfolio_health: exactly the spec ticker fields, totals, merged client metrics and the RU market context; none for USD', async () => {
    const chatId = await createChat(ALICE, { context_type: 'portfolio_health', context_id: rubPortfolio });
    const bad = await api('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'x', context_data: { volatility: 'high' } } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors['context_data.volatility']).toBeDefined();
    const big = await api('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'x', context_data: { blob: 'x'.repeat(20_000) } } });
    expect(big.status).toBe(422);

    await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'How healthy?', context_data: { volatility: 0.21, max_drawdown: -0.134, diversificationScore: 99 } } })).rest();
    const system = stack.model.requests.at(-1)!.body.messages[0]!.content ?? '';
    const json = (label: string) => JSON.parse(system.split('\n').find((l) => l.startsWith(label))!.slice(label.length));
    const positions = json('Positions (JSON): ');
    expect(positions).toHaveLength(1);
    expect(Object.keys(positions[0]).sort()).toEqual(
      ['ticker', 'title', 'type', 'symbol', 'totalQuantity', 'currentPrice', 'currentNetworth', 'currentIncome', 'spent', 'fixed', 'accruals', 'expenses', 'commissions', 'taxes', 'averageWeightedPrice', 'price_change_percentage_24h'].sort(),
    );
    expect(positions[0]).toMatchObject({ ticker: 'SBER', totalQuantity: '10', spent: '2500' });
    const health = json('Health metrics (JSON; volatility and max_drawdown are computed by the client app): ');
    expect(health).toMatchObject({ volatility: 0.21, max_drawdown: -0.134 });
    expect(health.diversificationScore).not.toBe(99);
    expect(json('Portfolio totals (JSON): ')).toMatchObject({ currency: 'RUB', totalSpent: '2500' });
    expect(system).toContain('sanctions');
    expect(system).toContain('You do not give individual investment advice');

    const usd = await createChat(ALICE, { context_type: 'portfolio_health', context_id: usdPortfolio });
    await (await openSse('POST', `/api/ai-chat/${usd}/messages`, { body: { message: 'And this one?' } })).rest();
    const usdSystem = stack.model.requests.at(-1)!.body.messages[0]!.content;
    expect(usdSystem).not.toContain('Market context');
    expect(usdSystem).not.toContain('sanctions');
  });
});

describe('limits', () => {
  it('counts complete answers per day and context, not one that failed before the model sent anything; over the limit is a 429 before any model call; the next MSK day resets', async () => {
    const user = `carol-${randomUUID().slice(0, 8)}`;
    const p = (await api('POST', '/api/portfolios', { user, body: { name: 'C', currency_code: 'RUB' } })).body.data.id;
    const chatId = await createChat(user, { context_type: 'portfolio_health', context_id: p });
    stack.clock.now = new Date('2026-03-10T12:00:00Z');
    // A failed model call: an error event, a failed message, nothing counted.
    stack.model.queue.push({ status: 500 });
    const failed = await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'fail' } })).rest();
    expect(failed.at(-1)).toMatchObject({ event: 'error' });
    expect(await messageStatus(failed[0]!.data.message_id)).toBe('failed');
    for (let i = 0; i < 5; i++) {
      const events = await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: `q${i}` } })).rest();
      expect(events.at(-1)!.data.remaining).toBe(4 - i);
    }
    const before = stack.model.requests.length;
    const over = await api('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'one more' } });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ limit: 5, resets_at: '2026-03-10T21:00:00.000Z' });
    expect(stack.model.requests.length).toBe(before);
    const limits = await api('GET', '/api/ai-chat/limits', { user });
    expect(limits.body.data).toEqual([
      { context_type: 'portfolio_health', limit: 5, used: 5, remaining: 0, period: 'day', resets_at: '2026-03-10T21:00:00.000Z' },
      { context_type: 'support', limit: 10, used: 0, remaining: 10, period: 'day', resets_at: '2026-03-10T21:00:00.000Z' },
    ]);
    // 00:00 Moscow time: a new day.
    stack.clock.now = new Date('2026-03-10T21:00:00Z');
    const next = await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'new day' } })).rest();
    expect(next.at(-1)).toMatchObject({ event: 'done', data: { remaining: 4 } });
    stack.clock.now = new Date();
  });
});

describe('failures and concurrency', () => {
  it('an error sent mid-stream ends as an error event and a failed message that counts (the model had sent part of it)', async () => {
    const user = `dave-${randomUUID().slice(0, 8)}`;
    const chatId = await createChat(user, { context_type: 'support' });
    stack.model.queue.push({ chunks: ['Half ', 'an ', 'answer'], errorAfter: 2 });
    const events = await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'break' } })).rest();
    expect(eventKinds(events)).toEqual(['start', 'chunk', 'error']);
    expect(events.at(-1)!.id).toMatch(/^\d+$/);
    const stored = (await api('GET', `/api/ai-chat/${chatId}`, { user })).body.data.messages[1];
    expect(stored).toMatchObject({ status: 'failed', content: 'Half an ' });
    const support = (await api('GET', '/api/ai-chat/limits', { user })).body.data.find((l: { context_type: string }) => l.context_type === 'support');
    expect(support.used).toBe(1);
  });

  it('concurrent sends cannot overshoot the limit', async () => {
    const user = `erin-${randomUUID().slice(0, 8)}`;
    const p = (await api('POST', '/api/portfolios', { user, body: { name: 'E', currency_code: 'RUB' } })).body.data.id;
    const chatId = await createChat(user, { context_type: 'portfolio_health', context_id: p });
    const statuses = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: `c${i}` } });
        await sse.rest();
        return sse.res.status;
      }),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
  });
});

describe('a paid plan', () => {
  it('applies to the next message as soon as billing records the payment (its event drops the cached entitlements)', async () => {
    const user = `fay-${randomUUID().slice(0, 8)}`;
    const chatId = await createChat(user, { context_type: 'support' });
    for (let i = 0; i < 10; i++) await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: `q${i}` } })).rest();
    expect((await api('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'more' } })).status).toBe(429);
    const paid = await sendSignedNotification(
      new URL('/api/provider/payment-success', stack.base).toString(),
      payNotificationFields({ TransactionId: Math.floor(3e9 + Math.random() * 1e9), Amount: 299, Currency: 'RUB', InvoiceId: null, AccountId: user, Status: 'Completed', SubscriptionId: null, TestMode: true }),
      CP_SECRET,
    );
    expect(paid.status, paid.body).toBe(200);
    const support = await eventuallyTruthy(async () => {
      const l = (await api('GET', '/api/ai-chat/limits', { user })).body.data.find((x: { context_type: string }) => x.context_type === 'support');
      return l.limit === 200 && l;
    }, 'the paid limit');
    expect(support).toMatchObject({ limit: 200, used: 10, remaining: 190 });
    const events = await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { user, body: { message: 'paid now' } })).rest();
    expect(events.at(-1)).toMatchObject({ event: 'done', data: { remaining: 189 } });
  });
});

describe('ratings', () => {
  it('rates assistant answers only (like|dislike with an optional comment); 404 for another user', async () => {
    const chatId = await createChat(ALICE, { context_type: 'support' });
    const events = await (await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'rate me' } })).rest();
    const { message_id, user_message_id } = events[0]!.data;
    const url = (id: string) => `/api/ai-chat/${chatId}/messages/${id}/rating`;
    const liked = await api('POST', url(message_id), { body: { rating: 'dislike', rating_comment: 'too short' } });
    expect(liked.status).toBe(200);
    expect(liked.body.data).toMatchObject({ id: message_id, rating: 'dislike', rating_comment: 'too short' });
    expect((await api('POST', url(message_id), { body: { rating: 'meh' } })).status).toBe(422);
    expect((await api('POST', url(user_message_id), { body: { rating: 'like' } })).status).toBe(422);
    expect((await api('POST', url(message_id), { user: BOB, body: { rating: 'like' } })).status).toBe(404);
    const msg = (await api('GET', `/api/ai-chat/${chatId}`)).body.data.messages[1];
    expect(msg).toMatchObject({ rating: 'dislike', rating_comment: 'too short' });
  });
});

// Last: a second chat instance shares the requests from here on.
describe('several chat instances', () => {
  it('a stop handled by another instance still aborts the model call; an answer no instance runs is settled as stopped', async () => {
    const second = await stack.addInstance();
    const chatId = await createChat(ALICE, { context_type: 'support' });
    stack.model.queue.push({ chunks: ['One ', 'two ', 'three'], holdLast: true });
    const sse = await openSse('POST', `/api/ai-chat/${chatId}/messages`, { body: { message: 'elsewhere' } });
    const messageId = (await sse.next())!.data.message_id as string;
    await sse.next();
    const req = stack.model.requests.at(-1)!;
    const running = [stack.chat, second].find((i) => i.generator.isRunning(messageId))!;
    const other = running === stack.chat ? second : stack.chat;
    const stopped = await other.chat.stop(ALICE, { chat_id: chatId, message_id: messageId });
    expect(stopped.data.status).toBe('stopped');
    await req.ended;
    expect(req.aborted).toBe(true);
    expect((await sse.rest()).at(-1)).toMatchObject({ event: 'done', data: { status: 'stopped' } });

    // An answer left streaming by an instance that died.
    const orphan = randomUUID();
    await stack.chatDb.query(
      `insert into chat_messages (id, chat_id, user_id, context_type, role, content, status, created_at) values ($1, $2, $3, 'support', 'assistant', '', 'streaming', now())`,
      [orphan, chatId, ALICE],
    );
    const settled = await api('POST', `/api/ai-chat/${chatId}/messages/${orphan}/stop`);
    expect(settled.status).toBe(200);
    expect(settled.body.data.status).toBe('stopped');
  });
});
