/**
 * Chat answer streams through the gateway (real chat stack, fake OpenAI-compatible model), as an adversarial test
 * found them: a reconnect after the final event hung with pings, a malformed Last-Event-ID replayed from the
 * start, a user's own message streamed as if it were an answer, a chunk of over 1 MB was dropped after a 30 s
 * stall, and lone surrogates streamed differently from what was stored.
 */
import { randomUUID } from 'node:crypto';
import { busName, busSubject } from '@invest/platform';
import { eventuallyTruthy } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStack, startChatStack } from '../support/chat-stack.js';

let stack: ChatStack;
const newUser = (p = 'resume') => `${p}-${randomUUID().slice(0, 8)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely
async function api(method: string, path: string, user: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; ctype: string | null }> {
  const h: Record<string, string> = { authorization: `Bearer ${await stack.token(user)}`, ...headers };
  if (body !== undefined) h['content-type'] = 'application/json';
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 8000);
  try {
    const res = await fetch(new URL(path, stack.base), { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), signal: ac.signal });
    const ctype = res.headers.get('content-type');
    if (ctype?.startsWith('text/event-stream')) {
      const s = await collect(res, 3000);
      return { status: res.status, body: s, ctype };
    }
    const text = await res.text();
    return { status: res.status, body: text && ctype?.includes('json') ? JSON.parse(text) : text, ctype };
  } finally {
    clearTimeout(timer);
  }
}

interface SseEvent {
  id?: string;
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  data: any;
}

/** Reads an SSE response for at most `ms`: its events, whether it ended by itself, and the raw text. */
async function collect(res: Response, ms: number): Promise<{ events: SseEvent[]; ended: boolean; raw: string }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  let ended = false;
  const until = Date.now() + ms;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) break;
    const r = await Promise.race([reader.read(), sleep(left).then(() => undefined)]);
    if (!r) break;
    if (r.done) {
      ended = true;
      break;
    }
    raw += decoder.decode(r.value, { stream: true });
  }
  if (!ended) await reader.cancel().catch(() => undefined);
  const events: SseEvent[] = [];
  for (const block of raw.split('\n\n')) {
    const e: Partial<SseEvent> = {};
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const i = line.indexOf(':');
      if (i < 0) continue;
      const k = line.slice(0, i);
      const v = line.slice(i + 1).replace(/^ /, '');
      if (k === 'id') e.id = v;
      if (k === 'event') e.event = v;
      if (k === 'data') data += v;
    }
    if (e.event) events.push({ ...e, event: e.event, data: data ? JSON.parse(data) : undefined } as SseEvent);
  }
  return { events, ended, raw };
}

async function send(user: string, chatId: string, message: string, ms = 10_000): Promise<{ status: number; events: SseEvent[]; ended: boolean; raw: string }> {
  const res = await fetch(new URL(`/api/ai-chat/${chatId}/messages`, stack.base), {
    method: 'POST',
    headers: { authorization: `Bearer ${await stack.token(user)}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ message }),
  });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) return { status: res.status, events: [], ended: true, raw: await res.text() };
  return { status: res.status, ...(await collect(res, ms)) };
}

async function resume(user: string, path: string, headers: Record<string, string> = {}, ms = 3000) {
  const res = await fetch(new URL(path, stack.base), { headers: { authorization: `Bearer ${await stack.token(user)}`, accept: 'text/event-stream', ...headers } });
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined, events: [] as SseEvent[], ended: true, raw: text };
  }
  return { status: res.status, json: undefined, ...(await collect(res, ms)) };
}

const createChat = async (user: string) => {
  const r = await api('POST', '/api/ai-chat', user, { context_type: 'support' });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.id as string;
};

/** A finished answer: its chat, message id and events. */
async function finishedAnswer(user: string, chunks = ['One ', 'two ', 'three.']) {
  const chatId = await createChat(user);
  stack.model.queue.push({ chunks });
  const s = await send(user, chatId, 'hello');
  expect(s.events.at(-1)?.event, s.raw).toBe('done');
  return { chatId, messageId: s.events[0]!.data.message_id as string, userMessageId: s.events[0]!.data.user_message_id as string, events: s.events };
}

beforeAll(async () => {
  // No token budget: one test streams 1.4 MB of answers, beyond a free day's tokens (token-budget.e2e covers it).
  stack = await startChatStack('gwchatresume', { heartbeatMs: 200, tokenBudgets: { free: null, paid: null } });
}, 120_000);
afterAll(() => stack?.close());

describe('an answer whose final event never comes', () => {
  it('ends from the stored answer once it is stored finished (its writer died between storing it and publishing the end)', async () => {
    const u = newUser();
    const chatId = await createChat(u);
    const messageId = randomUUID();
    await stack.chatDb.query(
      `insert into chat_messages (id, chat_id, user_id, context_type, role, content, status, created_at) values ($1, $2, $3, 'support', 'assistant', 'Half', 'streaming', now())`,
      [messageId, chatId, u],
    );
    const sse = await stack.openSse('GET', `/api/ai-chat/${chatId}/messages/${messageId}/stream`, { user: u });
    expect(sse.res.status).toBe(200);
    const events = sse.rest();
    // Relaying and waiting (a ping came); then the answer is stored finished and no event is ever published.
    await eventuallyTruthy(() => Promise.resolve(sse.raw.includes(': ping')), 'a ping on the open stream');
    await stack.chatDb.query(`update chat_messages set status = 'complete', content = 'Half an answer', completed_at = now() where id = $1`, [messageId]);
    const got = await events;
    expect(got.map((e) => e.event)).toEqual(['done']);
    expect(got[0]!.data).toMatchObject({ message_id: messageId, status: 'complete' });
  }, 30_000);
});

describe('resume: Last-Event-ID', () => {
  it('a finished answer resumed after its final event closes at once instead of hanging with pings', async () => {
    const u = newUser();
    const { chatId, messageId, events } = await finishedAnswer(u);
    const doneId = events.at(-1)!.id!;
    // What an EventSource sends when it reconnects after the server closed the stream following `done`.
    const r = await resume(u, `/api/ai-chat/${chatId}/messages/${messageId}/stream`, { 'last-event-id': doneId }, 4000);
    expect(r.status).toBe(200);
    expect({ ended: r.ended, pings: (r.raw.match(/: ping/g) ?? []).length, events: r.events.length }).toEqual({ ended: true, pings: 0, events: 0 });
  });

  it('a Last-Event-ID beyond the answer (15 digits) on a finished answer does not hang either', async () => {
    const u = newUser();
    const { chatId, messageId } = await finishedAnswer(u);
    const r = await resume(u, `/api/ai-chat/${chatId}/messages/${messageId}/stream?last_event_id=999999999999999`, {}, 4000);
    expect(r.status === 422 || r.ended, `status ${r.status}, ended ${r.ended}, raw ${r.raw.slice(0, 120)}`).toBe(true);
  });

  it('a malformed Last-Event-ID / last_event_id is a 422 naming it, not a silent replay from the start', async () => {
    const u = newUser();
    const { chatId, messageId } = await finishedAnswer(u);
    const path = `/api/ai-chat/${chatId}/messages/${messageId}/stream`;
    const got: string[] = [];
    for (const v of ['abc', '-1', '1.5', '1e3', '0x10', '9223372036854775808', '1234567890123456']) {
      const h = await resume(u, path, { 'last-event-id': v });
      const q = await resume(u, `${path}?last_event_id=${encodeURIComponent(v)}`);
      got.push(`header ${v}: ${h.status} ${h.json ? Object.keys(h.json.errors ?? {}) : h.events.map((e) => e.event).join(',')}`);
      got.push(`query ${v}: ${q.status} ${q.json ? Object.keys(q.json.errors ?? {}) : q.events.map((e) => e.event).join(',')}`);
    }
    expect(got.filter((g) => !/: 422 /.test(g))).toEqual([]);
  });

  it('?last_event_id given twice is a 422 under its name (as on every route)', async () => {
    const u = newUser();
    const { chatId, messageId } = await finishedAnswer(u);
    const r = await resume(u, `/api/ai-chat/${chatId}/messages/${messageId}/stream?last_event_id=1&last_event_id=99999`);
    expect(r.status, r.raw.slice(0, 200)).toBe(422);
    expect(Object.keys(r.json.errors)).toEqual(['last_event_id']);
  });
});

/** JetStream consumers of CHAT_STREAMS reading the answer `messageId`. */
async function consumersOf(messageId: string): Promise<number> {
  const subject = busSubject(stack.full.busPrefix, `chat.stream.${messageId}`);
  let n = 0;
  for await (const c of stack.full.bus.jsm.consumers.list(busName(stack.full.busPrefix, 'CHAT_STREAMS'))) {
    if (c.config.filter_subject === subject || c.config.filter_subjects?.includes(subject)) n++;
  }
  return n;
}

describe('many readers of one answer', () => {
  it("a user's live answer streams are capped (429 naming the limit); the readers of one answer share one consumer and all get it whole", async () => {
    const u = newUser('flood');
    const chatId = await createChat(u);
    stack.model.queue.push({ chunks: ['Shared ', 'answer.'], holdLast: true });
    const sender = await stack.openSse('POST', `/api/ai-chat/${chatId}/messages`, { user: u, body: { message: 'read me many times' } });
    const start = await sender.next();
    const messageId = start!.data.message_id as string;
    expect(await sender.next()).toMatchObject({ event: 'chunk', data: { content: 'Shared ' } });
    const path = `/api/ai-chat/${chatId}/messages/${messageId}/stream`;
    // The send's own stream is one of the user's 10 (CHAT_STREAM_MAX_PER_USER's default): 9 resumes are let in.
    const readers: Awaited<ReturnType<ChatStack['openSse']>>[] = [];
    for (let i = 0; i < 9; i++) {
      const r = await stack.openSse('GET', path, { user: u });
      expect(r.res.status).toBe(200);
      expect((await r.next())?.event).toBe('start');
      expect(await r.next()).toMatchObject({ event: 'chunk', data: { content: 'Shared ' } });
      readers.push(r);
    }
    for (let i = 0; i < 3; i++) {
      const over = await stack.api('GET', path, { user: u });
      expect(over.status, over.text).toBe(429);
      expect(over.body).toMatchObject({ limit: 10, message: expect.stringContaining('At most 10 live answer streams') });
    }
    // Another user is not held back by this one's streams (a 404 on this answer, not a 429).
    expect((await stack.api('GET', path, { user: newUser('other') })).status).toBe(404);
    // Ten readers, one consumer.
    expect(await consumersOf(messageId)).toBe(1);
    // A reader that leaves gives its place back, and the others keep reading.
    readers.shift()!.drop();
    const again = await eventuallyTruthy(async () => {
      const r = await stack.openSse('GET', path, { user: u });
      if (r.res.status === 200) return r;
      await r.rest().catch(() => undefined);
      return false;
    }, 'a place given back');
    readers.push(again);
    stack.model.release();
    const whole = (await sender.rest()).map((e) => e.event);
    expect(whole).toEqual(['chunk', 'done']);
    for (const r of readers) {
      const events = await r.rest();
      expect(events.filter((e) => e.event === 'chunk').map((e) => e.data.content).join('')).toContain('answer.');
      expect(events.at(-1)).toMatchObject({ event: 'done', data: { status: 'complete' } });
    }
    // Every stream ended: the places are free again, and the consumer is gone.
    await eventuallyTruthy(async () => (await consumersOf(messageId)) === 0, 'the consumer closed');
    const after = await stack.api('GET', path, { user: u });
    expect(after.status).toBe(200);
    expect(after.text).toContain('event: done');
  });
});

describe('a user message', () => {
  it('resuming the user\'s own message (not an answer) is refused like stop and rating refuse it', async () => {
    const u = newUser();
    const { chatId, userMessageId } = await finishedAnswer(u);
    const stop = await api('POST', `/api/ai-chat/${chatId}/messages/${userMessageId}/stop`, u);
    const r = await resume(u, `/api/ai-chat/${chatId}/messages/${userMessageId}/stream`);
    expect(stop.status).toBe(422);
    expect({ status: r.status, errors: r.json?.errors }).toEqual({ status: 422, errors: { message_id: ['Only an answer of the assistant can be streamed.'] } });
  });
});

describe('what the model sends', () => {
  it('an answer longer than 250,000 characters ends there, at once, as a failed answer whose text is what streamed', async () => {
    const u = newUser();
    const chatId = await createChat(u);
    stack.model.queue.push({ chunks: ['before ', 'z'.repeat(1_200_000), ' after'] });
    const started = Date.now();
    const s = await send(u, chatId, 'big');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(s.events.at(-1)?.event).toBe('error');
    const text = s.events.filter((e) => e.event === 'chunk').map((e) => e.data.content as string).join('');
    expect(text).toBe(`before ${'z'.repeat(250_000 - 7)}`);
    const chat = await api('GET', `/api/ai-chat/${chatId}`, u);
    expect(chat.body.data.messages.at(-1)).toMatchObject({ status: 'failed', content: text });
  });

  it('a chat whose messages add up to more than one NATS message is read whole, in order', async () => {
    const u = newUser();
    const chatId = await createChat(u);
    // 7 answers of 200,000 characters (~1.4 MB; a free day allows 10): a page of the chat's messages holds two.
    for (let i = 0; i < 7; i++) {
      stack.model.queue.push({ chunks: [`${i}:`, 'y'.repeat(200_000)] });
      const sent = await send(u, chatId, `long ${i}`);
      expect(sent.events.at(-1)?.event, `${sent.status} ${sent.raw.slice(0, 200)}`).toBe('done');
    }
    const chat = await api('GET', `/api/ai-chat/${chatId}`, u);
    expect(chat.status).toBe(200);
    const messages = chat.body.data.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(Array.from({ length: 14 }, (_, i) => (i % 2 === 0 ? 'user' : 'assistant')));
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.content.slice(0, 3))).toEqual(Array.from({ length: 7 }, (_, i) => `${i}:y`));
    expect(messages.filter((m) => m.role === 'assistant').every((m) => m.content.length === 200_002)).toBe(true);
  });

  it('what streams is what a reload shows: NUL dropped, lone surrogates as U+FFFD, a pair split between chunks kept', async () => {
    const u = newUser();
    const chatId = await createChat(u);
    stack.model.queue.push({ chunks: ['a\u0000b', 'c\ud800', 'd', '\udc00e \ud83d', '\ude00'] });
    const s = await send(u, chatId, 'odd text');
    expect(s.events.at(-1)?.event).toBe('done');
    const streamed = s.events.filter((e) => e.event === 'chunk').map((e) => e.data.content as string).join('');
    expect(streamed).toBe('abc\ufffdd\ufffde \u{1F600}');
    const chat = await api('GET', `/api/ai-chat/${chatId}`, u);
    expect(chat.body.data.messages.at(-1).content).toBe(streamed);
  });
});
