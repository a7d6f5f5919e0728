/**
 * Grounded answers (issue 35, item 2): the model reads the user's data through OpenAI tool calls, run by the chat
 * service as the answering user through the same RPCs the gateway calls. The local OpenAI-compatible stand-in
 * scripts the calls (a tool call, then text written from the tool result it was sent), so this runs offline.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeRequest } from '@invest/chat/testing/fake-openai';
import { type ChatStack, startChatStack } from '../support/chat-stack.js';

let stack: ChatStack;
const ALICE = `alice-${randomUUID().slice(0, 8)}`;
const BOB = `bob-${randomUUID().slice(0, 8)}`;
/** Alice's portfolio name: it must never reach a model answering Bob. */
const ALICE_PORTFOLIO_NAME = `Alice secret ${randomUUID().slice(0, 8)}`;
let alicePortfolio: number;

const api = (method: string, path: string, user: string, body?: unknown) => stack.api(method, path, { user, body });
const eventsOf = (text: string) =>
  [...text.matchAll(/event: (\w+)\ndata: (.*)\n/g)].map((m) => ({ event: m[1]!, data: JSON.parse(m[2]!) as Record<string, unknown> }));
const answerOf = (text: string) =>
  eventsOf(text)
    .filter((e) => e.event === 'chunk')
    .map((e) => e.data.content as string)
    .join('');
const toolMessages = (r: FakeRequest) => r.body.messages.filter((m) => m.role === 'tool');

beforeAll(async () => {
  stack = await startChatStack('chattools');
  const p = await api('POST', '/api/portfolios', ALICE, { name: ALICE_PORTFOLIO_NAME, currency_code: 'RUB' });
  expect(p.status, p.text).toBe(201);
  alicePortfolio = p.body.data.id;
  const d = await api('POST', `/api/portfolios/${alicePortfolio}/deals`, ALICE, {
    type: 'buy',
    assetable: { type: 'share', id: stack.full.shareIds.SBER },
    quantity: 7,
    price: 250,
    date: '2024-01-10',
  });
  expect(d.status, d.text).toBe(201);
}, 120_000);
afterAll(() => stack?.close());

describe('tool calls', () => {
  it("answers with a position's value read through get_holdings, and lists the source", async () => {
    const holdings = await api('GET', `/api/portfolios/${alicePortfolio}/holdings`, ALICE);
    expect(holdings.status, holdings.text).toBe(200);
    const apiValue = holdings.body.data.rows.find((r: { ticker: string }) => r.ticker === 'SBER').value as number;
    expect(apiValue).toEqual(expect.any(Number));

    const chat = await stack.createChat(ALICE, { context_type: 'portfolio_health', context_id: alicePortfolio });
    const before = stack.model.requests.length;
    let toolValue: string | undefined;
    stack.model.queue.push({ toolCalls: [{ name: 'get_holdings', arguments: { portfolio_id: alicePortfolio } }] }, (req) => {
      // The stand-in writes its text from the tool message it received, as a model would.
      const result = JSON.parse(toolMessages(req)[0]!.content!) as { positions: { ticker: string; value: string }[] };
      toolValue = result.positions.find((p) => p.ticker === 'SBER')!.value;
      return { chunks: ['Your SBER position is worth ', `${toolValue} RUB.`] };
    });
    const res = await api('POST', `/api/ai-chat/${chat}/messages`, ALICE, { message: 'What is my SBER worth?', context_data: {} });
    expect(res.status, res.text).toBe(200);

    const [first, second] = stack.model.requests.slice(before);
    expect(stack.model.requests).toHaveLength(before + 2);
    // The first call offers the tools, and the spec's portfolio_health prompt stays.
    expect(first!.body.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(['get_holdings', 'get_portfolio_statistics', 'get_asset', 'get_price_history', 'get_dividends', 'list_alerts']));
    const system = first!.body.messages[0]!.content ?? '';
    for (const line of ['Portfolio totals (JSON): ', 'Health metrics (JSON', 'Positions (JSON): ', 'Market context: ']) expect(system).toContain(line);
    // The second carries the model's call and its result, tied by the call's id.
    const call = second!.body.messages.find((m) => m.role === 'assistant' && m.tool_calls)!.tool_calls![0]!;
    expect(call.function).toEqual({ name: 'get_holdings', arguments: JSON.stringify({ portfolio_id: alicePortfolio }) });
    expect(toolMessages(second!)[0]!.tool_call_id).toBe(call.id);

    // The figure in the answer is the tool's, and it is the API's holdings value.
    expect(Number(toolValue)).toBe(apiValue);
    const answer = answerOf(res.text);
    expect(answer).toBe(`Your SBER position is worth ${toolValue} RUB.`);
    expect(answer).toContain(String(apiValue));

    const source = { tool: 'get_holdings', arguments: { portfolio_id: alicePortfolio }, label: `Holdings of portfolio ${alicePortfolio}` };
    const done = eventsOf(res.text).find((e) => e.event === 'done')!;
    expect(done.data).toMatchObject({ status: 'complete', sources: [source] });
    // Both model calls count in the usage, as one message of the limit.
    expect((done.data.usage as { completion_tokens: number }).completion_tokens).toBe(1 + 2);
    const stored = (await api('GET', `/api/ai-chat/${chat}`, ALICE)).body.data.messages;
    expect(stored[1]).toMatchObject({ role: 'assistant', status: 'complete', content: answer, sources: [source] });
    expect(stored[0].sources).toEqual([]);
    const limits = (await api('GET', '/api/ai-chat/limits', ALICE)).body.data.find((l: { context_type: string }) => l.context_type === 'portfolio_health');
    expect(limits.used).toBe(1);
  });

  it("refuses another user's portfolio as not found; nothing of it reaches the model", async () => {
    const chat = await stack.createChat(BOB, { context_type: 'support' });
    const before = stack.model.requests.length;
    stack.model.queue.push(
      { toolCalls: [{ name: 'get_holdings', arguments: { portfolio_id: alicePortfolio } }, { name: 'get_portfolio_statistics', arguments: { portfolio_id: alicePortfolio } }, { name: 'list_portfolios', arguments: {} }] },
      { chunks: ['I cannot see that portfolio.'] },
    );
    const res = await api('POST', `/api/ai-chat/${chat}/messages`, BOB, { message: `How is portfolio ${alicePortfolio} doing?`, context_data: {} });
    expect(res.status, res.text).toBe(200);

    const second = stack.model.requests[before + 1]!;
    const results = toolMessages(second).map((m) => JSON.parse(m.content!) as unknown);
    expect(results).toEqual([{ error: 'not_found', message: 'Not found.' }, { error: 'not_found', message: 'Not found.' }, []]);
    // Nothing of Alice's portfolio is in what the model was sent: not its name, not its position.
    const sent = JSON.stringify(stack.model.requests.slice(before).map((r) => r.body.messages));
    expect(sent).not.toContain(ALICE_PORTFOLIO_NAME);
    expect(sent).not.toContain('SBER');
    // Only what was read is a source: Bob's own (empty) list of portfolios.
    const done = eventsOf(res.text).find((e) => e.event === 'done')!;
    expect(done.data.sources).toEqual([{ tool: 'list_portfolios', arguments: {}, label: 'Portfolios' }]);
  });

  it('stops offering tools after the configured rounds (3): the next call must answer in text', async () => {
    const chat = await stack.createChat(BOB, { context_type: 'support' });
    const before = stack.model.requests.length;
    const usedBefore = (await api('GET', '/api/ai-chat/limits', BOB)).body.data.find((l: { context_type: string }) => l.context_type === 'support').used as number;
    const again = { toolCalls: [{ name: 'list_portfolios', arguments: {} }] };
    stack.model.queue.push(again, again, again, { chunks: ['You have no portfolios.'] }, again);
    const res = await api('POST', `/api/ai-chat/${chat}/messages`, BOB, { message: 'My portfolios?', context_data: {} });
    expect(res.status, res.text).toBe(200);

    const mine = stack.model.requests.slice(before);
    expect(mine).toHaveLength(4);
    expect(mine.slice(0, 3).every((r) => r.body.tools?.length)).toBe(true);
    expect(mine[3]!.body.tools).toBeUndefined();
    expect(toolMessages(mine[3]!)).toHaveLength(3);
    expect(answerOf(res.text)).toBe('You have no portfolios.');
    const done = eventsOf(res.text).find((e) => e.event === 'done')!;
    expect(done.data).toMatchObject({ status: 'complete' });
    expect(done.data.sources).toHaveLength(3);
    // One message of the limit, however many rounds.
    const usedAfter = (await api('GET', '/api/ai-chat/limits', BOB)).body.data.find((l: { context_type: string }) => l.context_type === 'support').used as number;
    expect(usedAfter).toBe(usedBefore + 1);
    stack.model.queue.length = 0;
  });
});
