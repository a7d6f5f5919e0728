/**
 * How the chat survives a misbehaving OpenAI-compatible model server: HTTP 429/500, a
 * stream cut off before `[DONE]`, malformed SSE JSON, a body that is not SSE, an empty stream, a server that
 * never answers or never ends. The real gateway, chat, portfolios, screener and billing services run over
 * real NATS and Postgres; only the model server is a local HTTP server (scripted per request).
 */
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStack, startChatStack } from '../support/chat-stack.js';
import { eventKinds } from '../support/sse-reader.js';

const KEY = 'sk-model-failures';
const IDLE_MS = 1500;

type Script = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
const queue: Script[] = [];
const open = new Set<ServerResponse>();

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-mf', object: 'chat.completion.chunk', created: 1694268190, model: 'gpt-4o-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ id: 'chatcmpl-mf', object: 'chat.completion.chunk', created: 1694268190, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } })}\n\n`;
const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });

const normal: Script = (_req, res) => {
  sse(res);
  res.write(chunk({ role: 'assistant', content: '' }));
  res.write(chunk({ content: 'Fine ' }));
  res.write(chunk({ content: 'answer.' }));
  res.write(chunk({}, 'stop'));
  res.write(usageChunk);
  res.end('data: [DONE]\n\n');
};

let stack: ChatStack;
let base: string;
let server: ReturnType<typeof createServer>;

const api = (method: string, path: string, user: string, body?: unknown) => stack.api(method, path, { user, body });

/** Sends a message and reads the whole SSE answer (events with their data). */
async function ask(user: string, chatId: string, message: string, timeoutMs = 20_000, headers: Record<string, string> = {}) {
  const res = await fetch(new URL(`/api/ai-chat/${chatId}/messages`, base), {
    method: 'POST',
    headers: { authorization: `Bearer ${await stack.token(user)}`, 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ message }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const events: { event: string; data: any }[] = [];
  for (const block of text.split('\n\n')) {
    const ev = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (ev) events.push({ event: ev, data: data ? JSON.parse(data) : undefined });
  }
  return { status: res.status, events };
}

async function freshChat(): Promise<{ user: string; chatId: string }> {
  const user = `mf-${randomUUID().slice(0, 8)}`;
  return { user, chatId: await stack.createChat(user) };
}
const supportUsed = async (user: string) =>
  (await api('GET', '/api/ai-chat/limits', user)).body.data.find((l: { context_type: string }) => l.context_type === 'support').used as number;
const answerRow = async (id: string) =>
  (await stack.chat.db.query<{ status: string; content: string; error: string | null; usage: unknown }>('select status, content, error, usage from chat_messages where id = $1', [id]))[0];

beforeAll(async () => {
  server = createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    void (async () => {
      for await (const _ of req) void _;
      const script = queue.shift() ?? normal;
      await script(req, res);
    })().catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const modelUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

  stack = await startChatStack('chatmf', { heartbeatMs: 500, idleTimeoutMs: IDLE_MS, connectTimeoutMs: 1500, model: { url: modelUrl, apiKey: KEY }, realClock: true });
  base = stack.base;
}, 120_000);

afterAll(async () => {
  for (const r of open) r.destroy();
  server?.closeAllConnections();
  server?.close();
  await stack?.close();
});

describe('a normal answer (control)', () => {
  it('is complete and counted', async () => {
    const { user, chatId } = await freshChat();
    const r = await ask(user, chatId, 'hi');
    expect(eventKinds(r.events)).toEqual(['start', 'chunk', 'done']);
    expect(await supportUsed(user)).toBe(1);
  });
});

describe('HTTP errors from the model', () => {
  for (const status of [429, 500, 503, 400]) {
    it(`HTTP ${status}: an error event, a failed answer, the question kept, nothing charged`, async () => {
      const { user, chatId } = await freshChat();
      queue.push((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
      });
      const r = await ask(user, chatId, `status ${status}`);
      expect(r.status).toBe(200);
      expect(r.events.at(-1)!.event).toBe('error');
      expect(r.events.at(-1)!.data.message).toBe('The assistant could not answer. Please try again.');
      expect(JSON.stringify(r.events)).not.toContain('Rate limit reached');
      const row = await answerRow(r.events[0]!.data.message_id);
      expect(row!.status).toBe('failed');
      expect(await supportUsed(user)).toBe(0);
      const msgs = (await api('GET', `/api/ai-chat/${chatId}`, user)).body.data.messages;
      expect(msgs.map((m: { role: string; status: string }) => [m.role, m.status])).toEqual([
        ['user', 'complete'],
        ['assistant', 'failed'],
      ]);
    });
  }
});

describe("the error event in the client's language", () => {
  it('a ru client reads why the answer failed in Russian, live and when it resumes the answer', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'boom', type: 'server_error', param: null, code: null } }));
    });
    const ru = { 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.8' };
    const r = await ask(user, chatId, 'ru failure', 20_000, ru);
    expect(r.events.at(-1)).toEqual({ event: 'error', data: { message_id: r.events[0]!.data.message_id, message: 'Ассистент не смог ответить. Попробуйте ещё раз.' } });
    // Resumed from the start: the error event again, from the replay buffer, in the language of this request.
    const resumed = await fetch(new URL(`/api/ai-chat/${chatId}/messages/${r.events[0]!.data.message_id}/stream`, base), {
      headers: { authorization: `Bearer ${await stack.token(user)}`, accept: 'text/event-stream', ...ru },
      signal: AbortSignal.timeout(20_000),
    });
    const text = await resumed.text();
    expect(text).toContain('event: error');
    expect(text).toContain('Ассистент не смог ответить. Попробуйте ещё раз.');
  });
});

describe('broken streams', () => {
  it('a stream cut off mid-answer (no finish_reason, no [DONE]) is not stored as a complete answer; charged, as the model had started', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      sse(res);
      res.write(chunk({ role: 'assistant', content: '' }));
      res.write(chunk({ content: 'The first half of ' }));
      res.write(chunk({ content: 'an answer that' }));
      res.end(); // the connection ends cleanly, mid-sentence
    });
    const r = await ask(user, chatId, 'cut me off');
    const row = await answerRow(r.events[0]!.data.message_id);
    expect(row!.status).not.toBe('complete');
    expect(r.events.at(-1)!.event).toBe('error');
    expect(await supportUsed(user)).toBe(1);
  });

  it('an HTTP 200 stream with no content at all (empty body) is not a complete, charged answer', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      sse(res);
      res.end();
    });
    const r = await ask(user, chatId, 'empty');
    const row = await answerRow(r.events[0]!.data.message_id);
    expect(row!.status).not.toBe('complete');
    expect(await supportUsed(user)).toBe(0);
  });

  it('a 200 whose body is a plain JSON completion (the server ignored stream:true) is not an empty complete answer', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-x',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'A whole answer.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    const r = await ask(user, chatId, 'json');
    const row = await answerRow(r.events[0]!.data.message_id);
    expect(row!.status === 'complete' && row!.content === '').toBe(false);
  });

  it('malformed SSE JSON mid-stream: an error event, failed, partial text kept, charged (the model had started)', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      sse(res);
      res.write(chunk({ role: 'assistant', content: '' }));
      res.write(chunk({ content: 'Partial ' }));
      res.write('data: {"id":"chatcmpl-mf","choices":[{"delta":{"content":"bro\n\n');
      res.end();
    });
    const r = await ask(user, chatId, 'malformed');
    expect(r.events.at(-1)!.event).toBe('error');
    const row = await answerRow(r.events[0]!.data.message_id);
    expect(row).toMatchObject({ status: 'failed', content: 'Partial ' });
    expect(await supportUsed(user)).toBe(1);
  });

  it('usage missing: the answer completes with estimated usage', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      sse(res);
      res.write(chunk({ role: 'assistant', content: '' }));
      res.write(chunk({ content: 'No usage here.' }));
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
    const r = await ask(user, chatId, 'no usage');
    expect(r.events.at(-1)).toMatchObject({ event: 'done', data: { status: 'complete', usage: { estimated: true } } });
    expect(await supportUsed(user)).toBe(1);
  });
});

describe('timeouts', () => {
  it('a server that never sends headers: failed after the connect timeout, nothing charged', async () => {
    const { user, chatId } = await freshChat();
    queue.push(() => undefined); // never answers
    const t0 = Date.now();
    const r = await ask(user, chatId, 'hang');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.events.at(-1)!.event).toBe('error');
    expect(await supportUsed(user)).toBe(0);
  });

  it('a stream that stops mid-answer but stays open: failed after the idle timeout, partial kept, charged (the model had started)', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      sse(res);
      res.write(chunk({ role: 'assistant', content: '' }));
      res.write(chunk({ content: 'Then silence' }));
    });
    const r = await ask(user, chatId, 'silence');
    expect(r.events.at(-1)!.event).toBe('error');
    expect(await answerRow(r.events[0]!.data.message_id)).toMatchObject({ status: 'failed', content: 'Then silence' });
    expect(await supportUsed(user)).toBe(1);
  });

  it('a stream that only sends keep-alive comments forever: failed after the idle timeout', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      sse(res);
      res.write(chunk({ role: 'assistant', content: '' }));
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(': OPENROUTER PROCESSING\n\n')), 200);
      res.on('close', () => clearInterval(t));
    });
    const r = await ask(user, chatId, 'comments');
    expect(r.events.at(-1)!.event).toBe('error');
    expect(await supportUsed(user)).toBe(0);
  });

  it('a stream that never ends, sending only usage chunks without content (running usage), is still abandoned', async () => {
    const { user, chatId } = await freshChat();
    queue.push((_req, res) => {
      sse(res);
      res.write(chunk({ role: 'assistant', content: '' }));
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(usageChunk)), 200);
      res.on('close', () => clearInterval(t));
    });
    await ask(user, chatId, 'usage forever', 15_000).catch((err: unknown) => ({ status: 0, events: [], err }));
    const [row] = await stack.chat.db.query<{ id: string; status: string }>(
      "select id, status from chat_messages where user_id = $1 and role = 'assistant'",
      [user],
    );
    expect(row!.status).not.toBe('streaming');
  }, 30_000);
});

describe('answers the model finished (a finish_reason) are complete, however the stream ends', () => {
  const usageWith = (choices: unknown) => `data: ${JSON.stringify({ id: 'chatcmpl-mf', object: 'chat.completion.chunk', created: 1694268190, model: 'gpt-4o-mini', choices, usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } })}\n\n`;
  const finishedThen = async (message: string, then: (res: ServerResponse) => void | Promise<void>) => {
    const { user, chatId } = await freshChat();
    queue.push(async (_req, res) => {
      sse(res);
      res.write(chunk({ role: 'assistant', content: 'Whole ' }));
      res.write(chunk({ content: 'answer.' }, 'stop'));
      await then(res);
    });
    const r = await ask(user, chatId, message);
    return { r, row: await answerRow(r.events[0]!.data.message_id as string), used: await supportUsed(user) };
  };

  it('a usage chunk with choices: null, then a close without [DONE]', async () => {
    const { row, used } = await finishedThen('a', (res) => void res.end(usageWith(null)));
    expect([row?.status, row?.content, used]).toEqual(['complete', 'Whole answer.', 1]);
  });

  it('the connection left open after it (no [DONE], no close): settled soon, not after the idle timeout', async () => {
    const started = Date.now();
    const { r, row } = await finishedThen('b', (res) => void res.write(usageWith([])));
    expect([r.events.at(-1)?.event, row?.status, row?.content]).toEqual(['done', 'complete', 'Whole answer.']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('the connection reset before the usage and [DONE]', async () => {
    const { row } = await finishedThen('c', async (res) => {
      await new Promise((r) => setTimeout(r, 100));
      res.socket?.resetAndDestroy();
    });
    expect([row?.status, row?.content]).toEqual(['complete', 'Whole answer.']);
  });

  it('the usage later than the idle timeout, keep-alive comments meanwhile', async () => {
    const { row } = await finishedThen('d', async (res) => {
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 250));
        res.write(': PROCESSING\n\n');
      }
      res.write(usageWith([]));
      res.end('data: [DONE]\n\n');
    });
    expect([row?.status, row?.content]).toEqual(['complete', 'Whole answer.']);
  });
});
