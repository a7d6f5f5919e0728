/**
 * One portfolio_health chat per portfolio (issue 35): opening it again, or many times at once, gives the same
 * chat, which continues; another portfolio, another user or a deleted chat gets its own; support chats stay new.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatStack, startChatStack } from '../support/chat-stack.js';

let stack: ChatStack;
const ALICE = `one-alice-${randomUUID().slice(0, 8)}`;
const BOB = `one-bob-${randomUUID().slice(0, 8)}`;

const api = (method: string, path: string, user = ALICE, body?: unknown) => stack.api(method, path, { user, body });
const newPortfolio = async (user: string, name: string) => {
  const r = await api('POST', '/api/portfolios', user, { name, currency_code: 'RUB' });
  expect(r.status, r.text).toBe(201);
  return r.body.data.id as number;
};
const openHealth = async (user: string, portfolio: number) => {
  const r = await api('POST', '/api/ai-chat', user, { context_type: 'portfolio_health', context_id: portfolio });
  expect(r.status, r.text).toBe(201);
  return r.body.data as { id: string; title: string | null; context_id: string };
};

beforeAll(async () => {
  stack = await startChatStack('onehealth', { offline: true });
}, 120_000);
afterAll(() => stack?.close());

describe('one portfolio_health chat per portfolio', () => {
  it('a second open gives the same chat, with its messages and title; another portfolio or user has its own', async () => {
    const p = await newPortfolio(ALICE, 'Main');
    const first = await openHealth(ALICE, p);
    const sent = await stack.openSse('POST', `/api/ai-chat/${first.id}/messages`, { user: ALICE, body: { message: 'Как мой портфель?', context_data: {} } });
    expect((await sent.rest()).map((e) => e.event)).toContain('done');

    const again = await openHealth(ALICE, p);
    expect(again.id).toBe(first.id);
    expect(again.title).toBe('Как мой портфель?');
    const got = await api('GET', `/api/ai-chat/${again.id}`);
    expect(got.body.data.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);

    expect((await openHealth(ALICE, await newPortfolio(ALICE, 'Second'))).id).not.toBe(first.id);
    const bobs = await openHealth(BOB, await newPortfolio(BOB, 'Bob'));
    expect(bobs.id).not.toBe(first.id);
    const list = await api('GET', '/api/ai-chat');
    expect(list.body.data.filter((c: { context_id: string }) => c.context_id === String(p))).toHaveLength(1);

    // Support chats are not tied to anything: each open is a new one.
    const s1 = await stack.createChat(ALICE, { context_type: 'support' });
    const s2 = await stack.createChat(ALICE, { context_type: 'support' });
    expect(s1).not.toBe(s2);
  });

  it('concurrent opens of one portfolio make one chat', async () => {
    const p = await newPortfolio(ALICE, 'Race');
    const ids = await Promise.all(Array.from({ length: 8 }, () => openHealth(ALICE, p)));
    expect(new Set(ids.map((c) => c.id)).size).toBe(1);
    const list = await api('GET', '/api/ai-chat?per_page=100');
    expect(list.body.data.filter((c: { context_id: string }) => c.context_id === String(p))).toHaveLength(1);
  });

  it('after the chat is deleted, opening the portfolio starts a new one', async () => {
    const p = await newPortfolio(ALICE, 'Deleted');
    const first = await openHealth(ALICE, p);
    expect((await api('DELETE', `/api/ai-chat/${first.id}`)).status).toBe(204);
    const next = await openHealth(ALICE, p);
    expect(next.id).not.toBe(first.id);
    expect((await openHealth(ALICE, p)).id).toBe(next.id);
  });
});
