/**
 * The chat with no model key: the built-in offline responder streams an answer built from the real portfolio
 * figures through the same path (gateway, NATS, JetStream) and says it is offline; no model server is called.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStack, startChatStack } from '../support/chat-stack.js';

let stack: ChatStack;
const USER = `olga-${randomUUID().slice(0, 8)}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
async function api(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; body: any }> {
  const res = await fetch(new URL(path, stack.base), {
    method,
    headers: { authorization: `Bearer ${await stack.token(USER)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  stack = await startChatStack('chatoff', { offline: true });
}, 120_000);
afterAll(() => stack?.close());

describe('offline responder', () => {
  it('streams an answer from the real statistics and says it is offline', async () => {
    const p = (await api('POST', '/api/portfolios', { name: 'Offline', currency_code: 'RUB' })).body.data.id;
    const deal = await api('POST', `/api/portfolios/${p}/deals`, { type: 'buy', assetable: { type: 'share', id: stack.full.shareIds.SBER }, quantity: 4, price: 250, date: '2024-01-10' });
    expect(deal.status, deal.text).toBe(201);
    const chat = (await api('POST', '/api/ai-chat', { context_type: 'portfolio_health', context_id: p })).body.data.id;
    const res = await api('POST', `/api/ai-chat/${chat}/messages`, { message: 'How is my portfolio?', context_data: { volatility: 0.3 } });
    expect(res.status).toBe(200);
    const chunks = [...res.text.matchAll(/event: chunk\ndata: (.*)\n/g)].map((m) => (JSON.parse(m[1]!) as { content: string }).content);
    expect(chunks.length).toBeGreaterThan(10);
    const answer = chunks.join('');
    expect(answer).toContain('offline');
    expect(answer).toContain('invested 1000 RUB');
    expect(answer).toContain('SBER 100%');
    expect(answer).toContain('Volatility: 0.3');
    expect(res.text).toContain('event: done');
    expect(stack.model.requests).toHaveLength(0);
    const stored = (await api('GET', `/api/ai-chat/${chat}`)).body.data.messages[1];
    expect(stored).toMatchObject({ status: 'complete', content: answer, usage: { estimated: true } });

    // A Russian question gets the same figures in Russian, and the position it names.
    const ru = await api('POST', `/api/ai-chat/${chat}/messages`, { message: 'Как мой портфель и что с SBER?', context_data: { volatility: 0.3 } });
    const ruAnswer = [...ru.text.matchAll(/event: chunk\ndata: (.*)\n/g)].map((m) => (JSON.parse(m[1]!) as { content: string }).content).join('');
    expect(ruAnswer).toContain('не подключён');
    expect(ruAnswer).toContain('вложено 1000 RUB');
    expect(ruAnswer).toMatch(/SBER \(.+\): 4 шт\./);
    expect(ruAnswer).toContain('Волатильность: 0.3');
    expect(ruAnswer).not.toContain('invested');
  });
});
