/**
 * Authorization sweep over the whole product (web stack: screener with demo data, portfolios,
 * billing with the local CloudPayments, alerts, chat with the local model, gateway). The rule: a signed-in user
 * never sees or changes another user's data. Another user's resource id is a 404 (never 200/403 with data,
 * never a 500), lists hold only the caller's rows, and nothing of the owner's changes.
 *
 * Alice (A) owns one of every resource; Bob (B) calls every route of the OpenAPI document that takes a path
 * parameter on Alice's ids (and on his own parents with her child ids), the id-in-body routes with her ids, and
 * the list routes. Then Alice's view is compared with the one taken before. Odd ids (other types, huge,
 * negative, non-numeric, UUID for integer and vice versa) are a 404 or 422, never a 500.
 */
import { randomUUID } from 'node:crypto';
import { eventually } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { looseBody } from '../support/gateway-api.js';
import { readSse, type SseEvent } from '../support/sse-reader.js';
import { type WebStack, startWebStack } from '../support/web-stack.js';

let stack: WebStack;
const A = `alice-${randomUUID().slice(0, 8)}`;
const B = `bob-${randomUUID().slice(0, 8)}`;
/** A free user with no resources at all (billing probes). */
const C = `carol-${randomUUID().slice(0, 8)}`;

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
  body: any;
  text: string;
  timedOut: boolean;
}

/** One HTTP call with a deadline (an SSE answer that would never end is cut and marked `timedOut`). */
async function call(method: string, path: string, opts: { user?: string; body?: unknown; raw?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.user) headers.authorization = `Bearer ${await stack.token(opts.user)}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), opts.timeoutMs ?? 8000);
  let status = 0;
  let text = '';
  let timedOut = false;
  try {
    const res = await fetch(new URL(path, stack.base), { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)), signal: ac.signal });
    status = res.status;
    const reader = res.body?.getReader();
    const dec = new TextDecoder();
    for (; reader; ) {
      const { value, done } = await reader.read();
      if (done) break;
      text += dec.decode(value, { stream: true });
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
    timedOut = true;
  } finally {
    clearTimeout(timer);
  }
  return { status, body: looseBody(text), text, timedOut };
}

async function ok(method: string, path: string, user: string, body?: unknown, status = 201, headers?: Record<string, string>) {
  const r = await call(method, path, { user, body, headers });
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
  return r.body;
}

/** Opens an SSE request as `user`. */
async function sse(method: string, path: string, user: string, body?: unknown, headers: Record<string, string> = {}) {
  const ac = new AbortController();
  const h: Record<string, string> = { ...headers, authorization: `Bearer ${await stack.token(user)}`, accept: 'text/event-stream' };
  if (body !== undefined) h['content-type'] = 'application/json';
  const res = await fetch(new URL(path, stack.base), { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), signal: ac.signal });
  return readSse(res, ac);
}

/** Alice sends a message and reads the whole answer: [answer id, her message id, events]. */
async function ask(user: string, chatId: string, message: string, headers: Record<string, string> = {}): Promise<{ answer: string; question: string; events: SseEvent[] }> {
  const s = await sse('POST', `/api/ai-chat/${chatId}/messages`, user, { message }, headers);
  expect(s.res.status).toBe(200);
  const events = await s.rest();
  expect(events[0]?.event, JSON.stringify(events)).toBe('start');
  expect(events.at(-1)?.event, JSON.stringify(events)).toBe('done');
  return { answer: events[0]!.data.message_id, question: events[0]!.data.user_message_id, events };
}

/** Alice's resources. */
const a = {} as {
  portfolio: number;
  portfolio2: number;
  deal: number;
  watchlist: number;
  item: number;
  asset: number;
  priceAlert: number;
  activeAlert: number;
  changeAlert: number;
  portfolioAlert: number;
  watchlistAlert: number;
  firings: number[];
  chat: string;
  healthChat: string;
  answer: string;
  question: string;
  streamingChat: string;
  streamingAnswer: string;
  keyedPortfolio: number;
  keyedAsset: number;
  keyedAlert: number;
  keyedChatAnswer: string;
  keyedChatAnswer2: string;
  keyedWatchlist: number;
  keyedDeal: number;
  paymentUuid: string;
};
/** Bob's own resources (parents for the cross-parent probes). */
const b = {} as { portfolio: number; deal: number; watchlist: number; item: number; asset: number; alert: number; chat: string; answer: string; question: string };

const SHARED_KEY = `shared-${randomUUID()}`;
const SECOND_KEY = `second-${randomUUID()}`;
const KEYED_DEAL = () => ({ type: 'buy', assetable: stack.share('SBER'), quantity: 1, price: 1, date: '2024-01-10' });
let streamingSse: Awaited<ReturnType<typeof sse>>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- snapshots are compared whole
let before: Record<string, any>;
let openApiPaths: Record<string, Record<string, unknown>>;

/** Everything Alice can see of her own data, read through the API (volatile fields dropped). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- snapshots are compared whole
async function aliceView(): Promise<Record<string, any>> {
  const get = async (path: string) => {
    const r = await call('GET', path, { user: A, headers: { 'accept-language': 'en' } });
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body;
  };
  const stats = await get(`/api/portfolios/${a.portfolio}/statistics`);
  const chat = await get(`/api/ai-chat/${a.chat}`);
  const chats = await get('/api/ai-chat?per_page=100');
  const notifications = await get('/api/notifications?per_page=100');
  return {
    portfolios: await get('/api/portfolios'),
    portfolio: await get(`/api/portfolios/${a.portfolio}`),
    deals: await get(`/api/portfolios/${a.portfolio}/deals?per_page=100`),
    stats: stats.data,
    watchlists: await get('/api/watchlists'),
    assets: await get('/api/custom-assets'),
    notifications: notifications.data,
    inbox: await get('/api/notification-events?per_page=100'),
    chats: chats.data
      .map((c: { id: string; title: unknown; context_type: unknown }) => ({ id: c.id, title: c.title, context_type: c.context_type }))
      .sort((x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id)),
    chat: { ...chat.data, updated_at: undefined, last_message_at: undefined },
    healthChat: (await get(`/api/ai-chat/${a.healthChat}`)).data,
    subscription: (await get('/api/subscription')).data,
    // The tokens used grow when her streaming answer finishes (her own action): the budget itself is compared.
    limits: await get('/api/ai-chat/limits').then((l) => ({ ...l, tokens: { ...l.tokens, used: undefined, remaining: undefined } })),
  };
}

beforeAll(async () => {
  // Alice's streaming answer below is held silent (its last chunk) until Bob's probes are done, however long they
  // take: on a loaded machine they took over 10 s, and the chat rightly failed the silent model at its idle timeout
  // ("The model sent nothing for 10000 ms."). The test releases her answer; no clock of the service may end it first.
  stack = await startWebStack('advz', { tickers: ['SBER', 'GAZP'], chatIdleTimeoutMs: 30 * 60_000 });
  await stack.applyRates([
    { ticker: 'SBER', rate: 100, change: 0 },
    { ticker: 'GAZP', rate: 200, change: 0 },
  ]);
  // Alice pays with a payment whose uuid Carol will try to claim later.
  a.paymentUuid = randomUUID();
  stack.provider.addPayment({ AccountId: A, Amount: 299, InvoiceId: a.paymentUuid });
  expect((await call('POST', '/api/subscribe', { user: A, body: { uuid: a.paymentUuid, plan: 'basic-m' } })).status).toBe(200);
  stack.alerts.entitlements.invalidate(A);
  await stack.subscribePaid(B);

  const sber = stack.share('SBER');
  const gazp = stack.share('GAZP');
  a.portfolio = (await ok('POST', '/api/portfolios', A, { name: 'Alice main', currency_code: 'RUB' })).data.id;
  a.portfolio2 = (await ok('POST', '/api/portfolios', A, { name: 'Alice second', currency_code: 'USD' })).data.id;
  a.deal = (await ok('POST', `/api/portfolios/${a.portfolio}/deals`, A, { type: 'buy', assetable: sber, quantity: 10, price: 100, commission: 1, date: '2024-01-10' })).data.id;
  a.watchlist = (await ok('POST', '/api/watchlists', A, { name: 'Alice watch' })).data.id;
  a.item = (await ok('POST', `/api/watchlists/${a.watchlist}/items`, A, { assetable: gazp })).data.id;
  a.asset = (await ok('POST', '/api/custom-assets', A, { name: 'Alice flat', ticker: 'AFLAT', currency: 'RUB', price: 1000 })).data.id;
  a.priceAlert = (await ok('POST', '/api/price-alert', A, { target_price: 110, assetable: sber, name: 'SBER 110' })).data.id;
  a.activeAlert = (await ok('POST', '/api/price-alert', A, { target_price: 250, assetable: gazp, name: 'GAZP 250' })).data.id;
  a.changeAlert = (await ok('POST', '/api/price-change-alert', A, { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: gazp.id, assetable_type_simplified: 'share', name: 'GAZP moves' })).data.id;
  a.portfolioAlert = (await ok('POST', '/api/price-change-alert', A, { threshold: 3, frequency: 'daily', targetable_type: 'portfolio', targetable_id: a.portfolio, name: 'Portfolio moves' })).data.id;
  a.watchlistAlert = (await ok('POST', '/api/price-change-alert', A, { threshold: 10, frequency: 'daily', targetable_type: 'watchlist', targetable_id: a.watchlist, name: 'Watch moves' })).data.id;
  // SBER to 111 with +4%: the price target (110) and the portfolio's price-change (3%) fire.
  await eventually(() => stack.alerts.db.query("select 1 from memberships where target_type = 'portfolio' and target_id = $1", [a.portfolio]), (r) => r.length === 1, 'membership');
  await stack.applyRates([{ ticker: 'SBER', rate: 111, change: 4 }]);
  const inbox = await eventually(
    async () => (await call('GET', '/api/notification-events', { user: A })).body,
    (body) => body?.meta?.total === 2,
    "Alice's firings",
  );
  a.firings = inbox.data.map((e: { id: number }) => e.id);

  a.chat = (await ok('POST', '/api/ai-chat', A, { context_type: 'support' })).data.id;
  a.healthChat = (await ok('POST', '/api/ai-chat', A, { context_type: 'portfolio_health', context_id: a.portfolio })).data.id;
  const asked = await ask(A, a.chat, 'What is my secret plan?');
  a.answer = asked.answer;
  a.question = asked.question;
  expect((await call('POST', `/api/ai-chat/${a.chat}/messages/${a.answer}/rating`, { user: A, body: { rating: 'like', rating_comment: 'alice liked it' } })).status).toBe(200);
  await ask(A, a.healthChat, 'How healthy is my portfolio?');
  // An answer still being written (its last chunk held until the end of the file).
  a.streamingChat = (await ok('POST', '/api/ai-chat', A, { context_type: 'support' })).data.id;
  const requests = stack.model.requests.length;
  stack.model.queue.push({ chunks: ['Alice ', 'private ', 'answer.'], holdLast: true });
  streamingSse = await sse('POST', `/api/ai-chat/${a.streamingChat}/messages`, A, { message: 'Tell me slowly' });
  const start = await streamingSse.next();
  expect(start?.event).toBe('start');
  a.streamingAnswer = start!.data.message_id;
  await stack.model.waitForRequest(requests + 1);

  // Bob's own resources.
  b.portfolio = (await ok('POST', '/api/portfolios', B, { name: 'Bob main', currency_code: 'RUB' })).data.id;
  b.deal = (await ok('POST', `/api/portfolios/${b.portfolio}/deals`, B, { type: 'buy', assetable: gazp, quantity: 1, price: 200, date: '2024-01-10' })).data.id;
  b.watchlist = (await ok('POST', '/api/watchlists', B, { name: 'Bob watch' })).data.id;
  b.item = (await ok('POST', `/api/watchlists/${b.watchlist}/items`, B, { assetable: sber })).data.id;
  b.asset = (await ok('POST', '/api/custom-assets', B, { name: 'Bob car', currency: 'RUB', price: 10 })).data.id;
  b.alert = (await ok('POST', '/api/price-alert', B, { target_price: 300, assetable: gazp, name: 'Bob GAZP' })).data.id;
  b.chat = (await ok('POST', '/api/ai-chat', B, { context_type: 'support' })).data.id;
  const bobAsked = await ask(B, b.chat, 'Bob question');
  b.answer = bobAsked.answer;
  b.question = bobAsked.question;

  // Alice's keyed creates (Bob reuses her key later); her watchlist alert switched off (a paid-only target).
  const h = { 'idempotency-key': SHARED_KEY };
  a.keyedPortfolio = (await ok('POST', '/api/portfolios', A, { name: 'Keyed', currency_code: 'RUB' }, 201, h)).data.id;
  a.keyedAsset = (await ok('POST', '/api/custom-assets', A, { name: 'Keyed', currency: 'RUB', price: 5 }, 201, h)).data.id;
  a.keyedAlert = (await ok('POST', '/api/price-alert', A, { target_price: 500, assetable: sber, name: 'Keyed' }, 201, h)).data.id;
  a.keyedWatchlist = (await ok('POST', '/api/watchlists', A, { name: 'Keyed' }, 201, h)).data.id;
  a.keyedChatAnswer = (await ask(A, a.chat, 'Keyed question', h)).answer;
  a.keyedChatAnswer2 = (await ask(A, a.chat, 'Second keyed question', { 'idempotency-key': SECOND_KEY })).answer;
  a.keyedDeal = (await ok('POST', `/api/portfolios/${a.portfolio2}/deals`, A, KEYED_DEAL(), 201, h)).data.id;
  expect((await call('POST', `/api/switch-notification/${a.watchlistAlert}`, { user: A })).body.data.is_active).toBe(false);

  openApiPaths = ((await (await fetch(new URL('/api/docs-json', stack.base))).json()) as { paths: Record<string, Record<string, unknown>> }).paths;
  before = await aliceView();
}, 180_000);

afterAll(async () => {
  stack?.model.release();
  streamingSse?.drop();
  await stack?.close();
});

/** A request of Bob's on Alice's ids, and what the gateway must answer. */
interface Probe {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The OpenAPI route (path template) it covers. */
  route: string;
}

function bobProbes(): Probe[] {
  const sber = stack.share('SBER');
  const gazp = stack.share('GAZP');
  const P = '/api/portfolios/{id}';
  const probes: Probe[] = [
    { route: P, method: 'GET', path: `/api/portfolios/${a.portfolio}` },
    { route: P, method: 'PATCH', path: `/api/portfolios/${a.portfolio}`, body: { name: 'pwned' } },
    { route: P, method: 'PATCH', path: `/api/portfolios/${a.portfolio}`, body: { currency_code: 'USD' } },
    { route: P, method: 'DELETE', path: `/api/portfolios/${a.portfolio2}` },
    { route: `${P}/deals`, method: 'GET', path: `/api/portfolios/${a.portfolio}/deals` },
    { route: `${P}/deals`, method: 'POST', path: `/api/portfolios/${a.portfolio}/deals`, body: { type: 'buy', assetable: gazp, quantity: 1, price: 1, date: '2024-01-10' } },
    { route: `${P}/deals`, method: 'POST', path: `/api/portfolios/${a.portfolio}/deals`, body: { type: 'sell', assetable: sber, quantity: 10, price: 1, date: '2024-02-10' } },
    { route: `${P}/deals/{dealId}`, method: 'DELETE', path: `/api/portfolios/${a.portfolio}/deals/${a.deal}` },
    { route: `${P}/deals/{dealId}`, method: 'DELETE', path: `/api/portfolios/${b.portfolio}/deals/${a.deal}` },
    { route: `${P}/deals/{dealId}`, method: 'DELETE', path: `/api/portfolios/${a.portfolio}/deals/${b.deal}` },
    { route: `${P}/imports/preview`, method: 'POST', path: `/api/portfolios/${a.portfolio}/imports/preview`, body: { csv: 'date;type;ticker;quantity;price\n2024-01-10;buy;GAZP;1;1\n' } },
    { route: `${P}/imports`, method: 'POST', path: `/api/portfolios/${a.portfolio}/imports`, body: { csv: 'date;type;ticker;quantity;price\n2024-01-10;buy;GAZP;1;1\n' } },
    { route: `${P}/statistics`, method: 'GET', path: `/api/portfolios/${a.portfolio}/statistics` },
    { route: `${P}/holdings`, method: 'GET', path: `/api/portfolios/${a.portfolio}/holdings` },
    { route: `${P}/history`, method: 'GET', path: `/api/portfolios/${a.portfolio}/history?range=ALL` },
    { route: `${P}/dividends`, method: 'GET', path: `/api/portfolios/${a.portfolio}/dividends` },
    { route: '/api/watchlists/{id}', method: 'DELETE', path: `/api/watchlists/${a.watchlist}` },
    { route: '/api/watchlists/{id}/items', method: 'POST', path: `/api/watchlists/${a.watchlist}/items`, body: { assetable: sber } },
    { route: '/api/watchlists/{id}/items', method: 'POST', path: `/api/watchlists/${a.watchlist}/items`, body: { assetable: gazp } },
    { route: '/api/watchlists/{id}/items/{itemId}', method: 'DELETE', path: `/api/watchlists/${a.watchlist}/items/${a.item}` },
    { route: '/api/watchlists/{id}/items/{itemId}', method: 'DELETE', path: `/api/watchlists/${b.watchlist}/items/${a.item}` },
    { route: '/api/watchlists/{id}/items/{itemId}', method: 'DELETE', path: `/api/watchlists/${a.watchlist}/items/${b.item}` },
    { route: '/api/custom-assets/{id}', method: 'PATCH', path: `/api/custom-assets/${a.asset}`, body: { price: 1 } },
    { route: '/api/custom-assets/{id}', method: 'PATCH', path: `/api/custom-assets/${a.asset}`, body: { name: 'pwned' } },
    { route: '/api/custom-assets/{id}', method: 'DELETE', path: `/api/custom-assets/${a.asset}` },
    { route: '/api/ai-chat/{id}', method: 'GET', path: `/api/ai-chat/${a.chat}` },
    { route: '/api/ai-chat/{id}', method: 'GET', path: `/api/ai-chat/${a.healthChat}` },
    { route: '/api/ai-chat/{id}', method: 'GET', path: `/api/ai-chat/${a.chat.toUpperCase()}` },
    { route: '/api/ai-chat/{id}', method: 'PATCH', path: `/api/ai-chat/${a.chat}`, body: { title: 'pwned' } },
    { route: '/api/ai-chat/{id}', method: 'DELETE', path: `/api/ai-chat/${a.healthChat}` },
    { route: '/api/ai-chat/{id}/messages', method: 'POST', path: `/api/ai-chat/${a.chat}/messages`, body: { message: 'Bob writes into Alice chat' } },
    { route: '/api/ai-chat/{id}/messages', method: 'POST', path: `/api/ai-chat/${a.healthChat}/messages`, body: { message: 'Bob asks about Alice portfolio' } },
    ...(['stream', 'stop'] as const).flatMap((action) => {
      const route = `/api/ai-chat/{id}/messages/{messageId}/${action}`;
      const method = action === 'stream' ? 'GET' : 'POST';
      return [
        { route, method, path: `/api/ai-chat/${a.chat}/messages/${a.answer}/${action}` },
        { route, method, path: `/api/ai-chat/${a.chat}/messages/${a.question}/${action}` },
        { route, method, path: `/api/ai-chat/${b.chat}/messages/${a.answer}/${action}` },
        { route, method, path: `/api/ai-chat/${a.chat}/messages/${b.answer}/${action}` },
        { route, method, path: `/api/ai-chat/${a.streamingChat}/messages/${a.streamingAnswer}/${action}` },
        { route, method, path: `/api/ai-chat/${b.chat}/messages/${a.streamingAnswer}/${action}` },
        ...(action === 'stream'
          ? [
              { route, method, path: `/api/ai-chat/${a.chat}/messages/${a.answer}/stream?last_event_id=0` },
              { route, method, path: `/api/ai-chat/${b.chat}/messages/${a.answer}/stream`, headers: { 'last-event-id': '0' } },
            ]
          : []),
      ];
    }),
    { route: '/api/ai-chat/{id}/messages/{messageId}/rating', method: 'POST', path: `/api/ai-chat/${a.chat}/messages/${a.answer}/rating`, body: { rating: 'dislike', rating_comment: 'bob was here' } },
    { route: '/api/ai-chat/{id}/messages/{messageId}/rating', method: 'POST', path: `/api/ai-chat/${b.chat}/messages/${a.answer}/rating`, body: { rating: 'dislike', rating_comment: 'bob was here' } },
    { route: '/api/ai-chat/{id}/messages/{messageId}/rating', method: 'POST', path: `/api/ai-chat/${a.chat}/messages/${b.answer}/rating`, body: { rating: 'dislike' } },
  ];
  // The public asset page shows market assets only: Alice's custom asset has none, by ticker or through its closes.
  probes.push(
    { route: '/api/public/assets/{type}/{ticker}', method: 'GET', path: '/api/public/assets/custom_asset/AFLAT' },
    { route: '/api/public/assets/{type}/{ticker}/closes', method: 'GET', path: '/api/public/assets/custom_asset/AFLAT/closes?range=1Y' },
  );
  // The links in mails carry an opaque token and no sign-in: an id of Alice's is no token (404 before any lookup).
  probes.push(
    { route: '/api/email/unsubscribe/{token}', method: 'GET', path: `/api/email/unsubscribe/${a.portfolio}` },
    { route: '/api/email/unsubscribe/{token}', method: 'POST', path: `/api/email/unsubscribe/${a.portfolio}`, body: { 'List-Unsubscribe': 'One-Click' } },
  );
  for (const id of [a.priceAlert, a.activeAlert, a.changeAlert, a.portfolioAlert, a.watchlistAlert]) {
    probes.push({ route: '/api/switch-notification/{id}', method: 'POST', path: `/api/switch-notification/${id}` });
    probes.push({ route: '/api/notifications/{id}', method: 'DELETE', path: `/api/notifications/${id}` });
  }
  return probes;
}

describe("Bob on Alice's ids", () => {
  it('every OpenAPI route with a path parameter is probed', () => {
    const withParams = Object.entries(openApiPaths).flatMap(([path, methods]) => (path.includes('{') ? Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`) : []));
    const probed = new Set(bobProbes().map((p) => `${p.method} ${p.route}`));
    expect(withParams.length).toBeGreaterThan(15);
    expect(withParams.filter((r) => !probed.has(r))).toEqual([]);
  });

  it("answers 404 on every route, with none of Alice's data in the answer", async () => {
    const requests = stack.model.requests.length;
    const secrets = ['Alice main', 'Alice second', 'Alice watch', 'Alice flat', 'AFLAT', 'SBER 110', 'GAZP 250', 'secret plan', 'healthy', 'alice liked', 'Alice ', A];
    const wrong: string[] = [];
    for (const p of bobProbes()) {
      const r = await call(p.method, p.path, { user: B, body: p.body, headers: p.headers });
      const leaked = secrets.filter((s) => r.text.includes(s));
      if (r.status !== 404 || leaked.length || r.timedOut) wrong.push(`${p.method} ${p.path} ${JSON.stringify(p.body ?? '')} -> ${r.status}${r.timedOut ? ' (stream kept open)' : ''} ${r.text.slice(0, 200)}${leaked.length ? ` LEAKS ${leaked}` : ''}`);
    }
    expect(wrong).toEqual([]);
    // Nothing of Bob's reached the model.
    expect(stack.model.requests.length).toBe(requests);
  });

  it("mark-read with Alice's firing ids marks nothing of hers; all:true only Bob's", async () => {
    const byIds = await call('POST', '/api/notification-events/read', { user: B, body: { ids: a.firings } });
    expect(byIds.status, byIds.text).toBe(200);
    expect(byIds.body.data).toEqual({ marked: 0, unread_count: 0 });
    const all = await call('POST', '/api/notification-events/read', { user: B, body: { all: true } });
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.marked).toBe(0);
    const inbox = await call('GET', '/api/notification-events', { user: A });
    expect(inbox.body.meta.unread_count).toBe(2);
    expect(inbox.body.data.map((e: { read_at: unknown }) => e.read_at)).toEqual([null, null]);
  });

  it("the notification stream resumed from before Alice's firings sends Bob none of them", async () => {
    for (const resume of [{ headers: { 'last-event-id': '0' } }, { query: '?last_event_id=0' }, { headers: { 'last-event-id': String(Math.min(...a.firings) - 1) } }]) {
      const r = await call('GET', `/api/notification-events/stream${resume.query ?? ''}`, { user: B, headers: resume.headers, timeoutMs: 1500 });
      expect(r.status).toBe(200);
      expect(r.text).toContain(': connected');
      expect(r.text, JSON.stringify(resume)).not.toContain('event: notification');
      for (const id of a.firings) expect(r.text).not.toMatch(new RegExp(`^id: ${id}$`, 'm'));
    }
  });

  it("Bob's lists hold only his rows", async () => {
    const ids = (body: { data: { id: unknown }[] }) => body.data.map((x) => x.id);
    const portfolios = await call('GET', '/api/portfolios', { user: B });
    expect(ids(portfolios.body)).toEqual([b.portfolio]);
    const watchlists = await call('GET', '/api/watchlists', { user: B });
    expect(ids(watchlists.body)).toEqual([b.watchlist]);
    expect(watchlists.body.data[0].items.map((i: { id: number }) => i.id)).toEqual([b.item]);
    expect(ids((await call('GET', '/api/custom-assets', { user: B })).body)).toEqual([b.asset]);
    expect(ids((await call('GET', '/api/notifications?per_page=100', { user: B })).body)).toEqual([b.alert]);
    const inbox = await call('GET', '/api/notification-events?per_page=100', { user: B });
    expect(inbox.body.data).toEqual([]);
    expect(inbox.body.meta).toMatchObject({ total: 0, unread_count: 0 });
    // after_id is the stream's own parameter: the list ignores it, and it must not open anything either.
    expect((await call('GET', '/api/notification-events?after_id=0', { user: B })).body.data).toEqual([]);
    expect(ids((await call('GET', '/api/ai-chat?per_page=100', { user: B })).body)).toEqual([b.chat]);
    const chat = await call('GET', `/api/ai-chat/${b.chat}`, { user: B });
    expect(chat.body.data.messages.map((m: { id: string }) => m.id).sort()).toEqual([b.answer, b.question].sort());
  });

  it("Alice's ids inside Bob's request bodies are refused (422/404), never used", async () => {
    const asset = { type: 'custom_asset', id: a.asset };
    const attempts: [string, string, unknown][] = [
      ['POST', `/api/portfolios/${b.portfolio}/deals`, { type: 'buy', assetable: asset, quantity: 1, price: 1, date: '2024-01-10' }],
      ['POST', `/api/watchlists/${b.watchlist}/items`, { assetable: asset }],
      ['POST', '/api/price-alert', { target_price: 5000, assetable: asset, name: 'x' }],
      ['POST', '/api/price-change-alert', { threshold: 5, frequency: 'daily', targetable_type: 'asset', targetable_id: a.asset, assetable_type_simplified: 'custom_asset' }],
      ['POST', '/api/price-change-alert', { threshold: 5, frequency: 'daily', targetable_type: 'portfolio', targetable_id: a.portfolio }],
      ['POST', '/api/price-change-alert', { threshold: 5, frequency: 'daily', targetable_type: 'watchlist', targetable_id: a.watchlist }],
      ['POST', '/api/ai-chat', { context_type: 'portfolio_health', context_id: a.portfolio }],
      ['POST', '/api/ai-chat', { context_type: 'portfolio_health', context_id: String(a.portfolio) }],
    ];
    const wrong: string[] = [];
    for (const [method, path, body] of attempts) {
      const r = await call(method, path, { user: B, body });
      if (![404, 422].includes(r.status) || /Alice/.test(r.text)) wrong.push(`${method} ${path} ${JSON.stringify(body)} -> ${r.status} ${r.text.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("an owner field in Bob's create bodies never makes Alice the owner", async () => {
    const attempts: [string, unknown][] = [
      ['/api/portfolios', { name: 'Planted', currency_code: 'RUB', user_id: A }],
      ['/api/portfolios', { name: 'Planted', currency_code: 'RUB', userId: A }],
      ['/api/watchlists', { name: 'Planted', user_id: A }],
      ['/api/custom-assets', { name: 'Planted', currency: 'RUB', price: 1, user_id: A }],
      ['/api/price-alert', { target_price: 500, assetable: stack.share('SBER'), name: 'Planted', user_id: A }],
      ['/api/ai-chat', { context_type: 'support', user_id: A }],
    ];
    for (const [path, body] of attempts) {
      const r = await call('POST', path, { user: B, body });
      expect([201, 422], `${path}: ${r.text}`).toContain(r.status);
    }
    // Alice's parent ids in the bodies of Bob's child creates: his own parent (from the path) or a 422; Alice's
    // deals, items, chats and messages stay as they were (compared at the end).
    const gazp = stack.share('GAZP');
    const children: [string, unknown][] = [
      [`/api/portfolios/${b.portfolio}/deals`, { type: 'buy', assetable: gazp, quantity: 1, price: 1, date: '2024-01-11', portfolio_id: a.portfolio, user_id: A }],
      [`/api/watchlists/${b.watchlist}/items`, { assetable: gazp, watchlist_id: a.watchlist, user_id: A }],
      ['/api/price-change-alert', { threshold: 10, frequency: 'daily', targetable_type: 'asset', targetable_id: gazp.id, assetable_type_simplified: 'share', user_id: A, userId: A }],
    ];
    for (const [path, body] of children) {
      const r = await call('POST', path, { user: B, body });
      expect([201, 422], `${path}: ${r.text}`).toContain(r.status);
    }
    const msg = await call('POST', `/api/ai-chat/${b.chat}/messages`, { user: B, body: { message: 'planted', chat_id: a.chat, user_id: A, message_id: a.answer } });
    expect([200, 422], msg.text).toContain(msg.status);
    if (msg.status === 200) expect(msg.text).not.toContain(a.answer);
    // Headers naming a user do not make Bob Alice either (and without a token they are nobody).
    const spoof = { 'x-user-id': A, 'x-forwarded-user': A, 'x-auth-user': A, 'x-remote-user': A };
    expect((await call('GET', `/api/portfolios/${a.portfolio}`, { user: B, headers: spoof })).status).toBe(404);
    expect((await call('GET', `/api/portfolios/${a.portfolio}`, { headers: spoof })).status).toBe(401);
    expect((await call('GET', '/api/portfolios', { headers: spoof })).status).toBe(401);
  });

  it("the same Idempotency-Key as Alice's gives Bob his own resource, never Alice's answer", async () => {
    const h = { 'idempotency-key': SHARED_KEY };
    const wrong: string[] = [];
    for (const [path, body, hers] of [
      ['/api/portfolios', { name: 'Keyed', currency_code: 'RUB' }, a.keyedPortfolio],
      ['/api/custom-assets', { name: 'Keyed', currency: 'RUB', price: 5 }, a.keyedAsset],
      ['/api/price-alert', { target_price: 500, assetable: stack.share('SBER'), name: 'Keyed' }, a.keyedAlert],
      ['/api/watchlists', { name: 'Keyed' }, a.keyedWatchlist],
      [`/api/portfolios/${b.portfolio}/deals`, KEYED_DEAL(), a.keyedDeal],
    ] as const) {
      const r = await call('POST', path, { user: B, body, headers: h });
      if (r.status !== 201 || r.body.data.id === hers) wrong.push(`POST ${path} with Alice's key -> ${r.status} ${r.text.slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
    // Same key, same body, Bob's own chat: a fresh answer of his, not a replay of Alice's.
    const bobAsk = await sse('POST', `/api/ai-chat/${b.chat}/messages`, B, { message: 'Keyed question' }, h);
    const events = await bobAsk.rest();
    expect(events[0]?.event, JSON.stringify(events)).toBe('start');
    expect(events[0]!.data.message_id).not.toBe(a.keyedChatAnswer);
    // Alice's other key on Alice's chat (a key Bob never used): a 404 for Bob, not her answer replayed.
    const onHers = await call('POST', `/api/ai-chat/${a.chat}/messages`, { user: B, body: { message: 'Second keyed question' }, headers: { 'idempotency-key': SECOND_KEY } });
    expect(onHers.status, onHers.text).toBe(404);
    expect(onHers.text).not.toContain(a.keyedChatAnswer2);
  });

  it("Carol (free plan) switching or deleting Alice's notifications gets 404, not the plan gate's 403", async () => {
    // Carol at her plan's limit: three active notifications of her own.
    for (const t of [120, 130, 140]) await ok('POST', '/api/price-alert', C, { target_price: t, assetable: stack.share('SBER'), name: `c${t}` });
    const wrong: string[] = [];
    for (const id of [a.priceAlert, a.watchlistAlert, a.portfolioAlert, a.activeAlert, a.changeAlert]) {
      for (const [method, path] of [
        ['POST', `/api/switch-notification/${id}`],
        ['DELETE', `/api/notifications/${id}`],
      ] as const) {
        const r = await call(method, path, { user: C });
        if (r.status !== 404) wrong.push(`${method} ${path} (as a free user) -> ${r.status} ${r.text.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('HEAD, path spellings and query parameters naming Alice do not reach her data', async () => {
    const wrong: string[] = [];
    const expect404 = [
      ['HEAD', `/api/portfolios/${a.portfolio}`],
      ['HEAD', `/api/portfolios/${a.portfolio}/deals`],
      ['HEAD', `/api/portfolios/${a.portfolio}/statistics`],
      ['HEAD', `/api/ai-chat/${a.chat}`],
      ['HEAD', `/api/ai-chat/${a.chat}/messages/${a.answer}/stream`],
      ['GET', `/api/portfolios/${a.portfolio}/`],
      ['GET', `/api//portfolios/${a.portfolio}`],
      ['GET', `/api/portfolios/${a.portfolio}/deals/`],
      ['GET', `/api/portfolios/${b.portfolio}/../${a.portfolio}`],
      ['GET', `/api/portfolios/${b.portfolio}%2F..%2F${a.portfolio}`],
      ['GET', `/api/portfolios/${a.portfolio}?id=${b.portfolio}`],
      ['GET', `/api/portfolios/${a.portfolio};id=${b.portfolio}`],
      ['GET', `/api/ai-chat/${a.chat}/`],
      ['GET', `/api/ai-chat/${a.chat}?id=${b.chat}`],
    ] as const;
    for (const [method, path] of expect404) {
      const r = await call(method, path, { user: B });
      if (r.status !== 404 || /Alice/.test(r.text)) wrong.push(`${method} ${path} -> ${r.status} ${r.text.slice(0, 160)}`);
    }
    // Bob's own resource with Alice's id in the query or body: Bob's, unchanged Alice.
    const own = await call('GET', `/api/portfolios/${b.portfolio}?id=${a.portfolio}&portfolio_id=${a.portfolio}`, { user: B });
    if (own.status !== 200 || own.body.data.id !== b.portfolio) wrong.push(`GET own portfolio with ?id=Alice's -> ${own.status} ${own.text.slice(0, 160)}`);
    const deals = await call('GET', `/api/portfolios/${b.portfolio}/deals?portfolio_id=${a.portfolio}`, { user: B });
    if (![200, 422].includes(deals.status) || /Alice/.test(deals.text) || (deals.status === 200 && deals.body.data.some((d: { id: number }) => d.id === a.deal))) wrong.push(`GET own deals ?portfolio_id=Alice's -> ${deals.status} ${deals.text.slice(0, 160)}`);
    for (const [path, body] of [
      [`/api/portfolios/${b.portfolio}`, { name: 'Bob renamed', id: a.portfolio }],
      [`/api/custom-assets/${b.asset}`, { description: 'bob', id: a.asset }],
      [`/api/ai-chat/${b.chat}`, { title: 'Bob chat', id: a.chat }],
    ] as const) {
      const r = await call('PATCH', path, { user: B, body });
      if (![200, 422].includes(r.status) || /Alice/.test(r.text)) wrong.push(`PATCH ${path} ${JSON.stringify(body)} -> ${r.status} ${r.text.slice(0, 160)}`);
    }
    const chatBody = await call('POST', `/api/ai-chat/${b.chat}/messages/${b.answer}/rating`, { user: B, body: { rating: 'like', chat_id: a.chat, message_id: a.answer } });
    if (![200, 422].includes(chatBody.status) || chatBody.text.includes(a.answer)) wrong.push(`rating with Alice's ids in the body -> ${chatBody.status} ${chatBody.text.slice(0, 160)}`);
    // Lists with a user named in the query: Bob's own rows (or a 422).
    for (const path of ['/api/portfolios', '/api/watchlists', '/api/custom-assets', '/api/notifications', '/api/notification-events', '/api/ai-chat', '/api/subscription']) {
      const r = await call('GET', `${path}?user_id=${A}&userId=${A}&user=${A}`, { user: B });
      // The rows only (the links repeat the query).
      if (![200, 422].includes(r.status) || /Alice|alice-/.test(JSON.stringify(r.body?.data ?? null))) wrong.push(`GET ${path}?user_id=Alice -> ${r.status} ${r.text.slice(0, 160)}`);
    }
    // The screener does not list Alice's custom asset to anyone.
    for (const path of ['/api/shares?search=AFLAT', '/api/shares?search=Alice', '/api/public/shares?search=AFLAT', '/api/public/shares?search=Alice%20flat']) {
      const r = await call('GET', path, { user: path.includes('public') ? undefined : B });
      if (r.status !== 200 || /AFLAT|Alice/.test(JSON.stringify(r.body?.data ?? null))) wrong.push(`GET ${path} -> ${r.status} ${r.text.slice(0, 160)}`);
    }
    // Nor does the asset search, to another user or to anyone without a token (Alice finds it).
    const ownSearch = await call('GET', '/api/assets?search=AFLAT', { user: A });
    if (ownSearch.status !== 200 || !/AFLAT/.test(JSON.stringify(ownSearch.body?.data ?? null))) wrong.push(`Alice's own search -> ${ownSearch.status} ${ownSearch.text.slice(0, 160)}`);
    for (const [path, user] of [
      ['/api/assets?search=AFLAT', B],
      [`/api/assets?type=custom_asset&user_id=${A}`, B],
      ['/api/assets?search=Alice%20flat', undefined],
      ['/api/assets?type=custom_asset', undefined],
    ] as const) {
      const r = await call('GET', path, { user });
      if (r.status !== 200 || /AFLAT|Alice/.test(JSON.stringify(r.body?.data ?? null))) wrong.push(`GET ${path} as ${user ?? 'nobody'} -> ${r.status} ${r.text.slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('odd ids in bodies and headers: mark-read ids, Last-Event-ID (never a 500)', async () => {
    const wrong: string[] = [];
    // 2^53 + 1 as raw JSON (a JS number literal would lose it before it is sent).
    const beyond = await call('POST', '/api/notification-events/read', { user: B, body: undefined, headers: { 'content-type': 'application/json' }, raw: '{"ids":[9007199254740993]}' });
    if (![200, 422].includes(beyond.status) || (beyond.status === 200 && beyond.body.data.marked !== 0)) wrong.push(`read ids=[2^53+1] -> ${beyond.status} ${beyond.text.slice(0, 160)}`);
    for (const ids of [[-1], [0], [1.5], ['1'], [1e20], [2147483648], [Number.MAX_SAFE_INTEGER], Array.from({ length: 501 }, (_, i) => i + 1), [null], 'all', {}]) {
      const r = await call('POST', '/api/notification-events/read', { user: B, body: { ids } });
      if (![200, 422].includes(r.status) || (r.status === 200 && r.body.data.marked !== 0)) wrong.push(`read ids=${JSON.stringify(ids).slice(0, 40)} -> ${r.status} ${r.text.slice(0, 160)}`);
    }
    for (const id of ['-1', 'abc', '1e3', '999999999999999', '9999999999999999', '99999999999999999999', ' 1', '1.5', '0x1']) {
      const r = await call('GET', `/api/notification-events/stream?last_event_id=${encodeURIComponent(id)}`, { user: B, timeoutMs: 700 });
      if (![200, 422].includes(r.status) || r.text.includes('event: notification')) wrong.push(`notification stream last_event_id=${id} -> ${r.status} ${r.text.slice(0, 160)}`);
      const c = await call('GET', `/api/ai-chat/${b.chat}/messages/${b.answer}/stream?last_event_id=${encodeURIComponent(id)}`, { user: B, timeoutMs: 3000 });
      if (![200, 422].includes(c.status) || c.timedOut) wrong.push(`chat stream last_event_id=${id} -> ${c.status}${c.timedOut ? ' (kept open)' : ''} ${c.text.slice(0, 160)}`);
    }
    for (const q of ['page=0', 'page=-1', 'page=abc', 'page=99999999999', 'per_page=0', 'per_page=101', 'per_page=1e2', 'page=2147483647']) {
      for (const path of ['/api/notifications', '/api/notification-events', '/api/ai-chat', `/api/portfolios/${b.portfolio}/deals`]) {
        const r = await call('GET', `${path}?${q}`, { user: B });
        if (![200, 422].includes(r.status)) wrong.push(`GET ${path}?${q} -> ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
    // Alice's own chat id in upper case: hers or a 404, never a 500.
    const upper = await call('GET', `/api/ai-chat/${a.chat.toUpperCase()}`, { user: A });
    if (![200, 404].includes(upper.status)) wrong.push(`GET upper-case own chat id -> ${upper.status} ${upper.text.slice(0, 160)}`);
    expect(wrong).toEqual([]);
  });

  it('concurrent reads of Alice and Bob each answer only their own rows', async () => {
    const paths = ['/api/portfolios', '/api/watchlists', '/api/custom-assets', '/api/notifications?per_page=100', '/api/ai-chat?per_page=100', '/api/notification-events?per_page=100'];
    const jobs = Array.from({ length: 60 }, (_, i) => ({ user: i % 2 ? B : A, path: paths[i % paths.length]! }));
    const answers = await Promise.all(jobs.map((j) => call('GET', j.path, { user: j.user })));
    const wrong: string[] = [];
    answers.forEach((r, i) => {
      const { user } = jobs[i]!;
      const rows = JSON.stringify(r.body?.data ?? null);
      const foreign = user === A ? /Bob |bob-/ : /Alice|alice-/;
      if (r.status !== 200 || foreign.test(rows)) wrong.push(`${user === A ? 'Alice' : 'Bob'} GET ${jobs[i]!.path} -> ${r.status} ${rows.slice(0, 160)}`);
    });
    expect(wrong).toEqual([]);
  });

  it("Carol cannot claim Alice's payment (POST /api/subscribe with her uuid)", async () => {
    const r = await call('POST', '/api/subscribe', { user: C, body: { uuid: a.paymentUuid, plan: 'basic-m' } });
    expect(r.status, r.text).toBeGreaterThanOrEqual(400);
    expect(r.status, r.text).toBeLessThan(500);
    const sub = await call('GET', '/api/subscription', { user: C });
    expect(sub.status).toBe(200);
    expect(sub.body.data?.status ?? null).not.toBe('active');
    const sync = await call('POST', '/api/sync-subscription', { user: C });
    expect(sync.status, sync.text).toBeLessThan(500);
    expect((await call('GET', '/api/subscription', { user: C })).body.data?.status ?? null).not.toBe('active');
  });

  it("Bob's stop left Alice's streaming answer running; it finishes complete", async () => {
    const chat = await call('GET', `/api/ai-chat/${a.streamingChat}`, { user: A });
    expect(chat.body.data.messages.find((m: { id: string }) => m.id === a.streamingAnswer)?.status).toBe('streaming');
    stack.model.release();
    const rest = await streamingSse.rest();
    expect(rest.at(-1), JSON.stringify(rest)).toMatchObject({ event: 'done', data: { status: 'complete' } });
    const text = rest.filter((e) => e.event === 'chunk').map((e) => e.data.content).join('');
    expect(text).toBe('Alice private answer.');
  });
});

describe('odd ids: 404 or 422, never a 500', () => {
  const intRoutes = (p: string, c: number) => [
    ['GET', `/api/portfolios/${p}`],
    ['PATCH', `/api/portfolios/${p}`, { name: 'x' }],
    ['DELETE', `/api/portfolios/${p}`],
    ['GET', `/api/portfolios/${p}/deals`],
    ['POST', `/api/portfolios/${p}/deals`, { type: 'buy', assetable: { type: 'share', id: 1 }, quantity: 1, price: 1, date: '2024-01-10' }],
    ['DELETE', `/api/portfolios/${p}/deals/${c}`],
    ['GET', `/api/portfolios/${p}/statistics`],
    ['GET', `/api/portfolios/${p}/holdings`],
    ['GET', `/api/portfolios/${p}/history`],
    ['GET', `/api/portfolios/${p}/dividends`],
    ['DELETE', `/api/watchlists/${p}`],
    ['POST', `/api/watchlists/${p}/items`, { assetable: { type: 'share', id: 1 } }],
    ['DELETE', `/api/watchlists/${p}/items/${c}`],
    ['PATCH', `/api/custom-assets/${p}`, { price: 1 }],
    ['DELETE', `/api/custom-assets/${p}`],
    ['POST', `/api/switch-notification/${p}`],
    ['DELETE', `/api/notifications/${p}`],
  ] as [string, string, unknown?][];
  const uuidRoutes = (c: string, m: string) => [
    ['GET', `/api/ai-chat/${c}`],
    ['PATCH', `/api/ai-chat/${c}`, { title: 'x' }],
    ['DELETE', `/api/ai-chat/${c}`],
    ['POST', `/api/ai-chat/${c}/messages`, { message: 'x' }],
    ['GET', `/api/ai-chat/${c}/messages/${m}/stream`],
    ['POST', `/api/ai-chat/${c}/messages/${m}/stop`],
    ['POST', `/api/ai-chat/${c}/messages/${m}/rating`, { rating: 'like' }],
  ] as [string, string, unknown?][];
  const odd = ['0', '-1', 'abc', '1.5', '1e3', '0x10', '%20', '+1', '01', '2147483648', '9223372036854775808', '99999999999999999999999999', '9007199254740993', randomUUID(), 'null', "1'%20or%20'1'='1", '%F0%9F%92%A9', '1%00'];

  it('integer-id routes with odd ids, as Bob: 404 or 422', async () => {
    const wrong: string[] = [];
    for (const id of odd) {
      // The odd id as the resource, and as the child of Bob's own parents.
      const children: [string, string][] = [
        ['DELETE', `/api/portfolios/${b.portfolio}/deals/${id}`],
        ['DELETE', `/api/watchlists/${b.watchlist}/items/${id}`],
      ];
      for (const [method, path, body] of [...intRoutes(id, b.deal), ...children]) {
        const r = await call(method, path, { user: B, body });
        if (![404, 422].includes(r.status)) wrong.push(`${method} ${path} -> ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('UUID routes with integers and odd strings, as Bob: 404 or 422', async () => {
    const wrong: string[] = [];
    const oddUuids = ['1', String(a.portfolio), '0', '-1', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', randomUUID(), `${randomUUID()}x`, `{${randomUUID()}}`, randomUUID().replace(/-/g, ''), '%F0%9F%92%A9', 'limits%00'];
    for (const id of oddUuids) {
      for (const [method, path, body] of [...uuidRoutes(id, randomUUID()), ...uuidRoutes(b.chat, id)]) {
        if (path === `/api/ai-chat/${b.chat}` || path === `/api/ai-chat/${b.chat}/messages`) continue;
        const r = await call(method, path, { user: B, body });
        if (![404, 422].includes(r.status)) wrong.push(`${method} ${path} -> ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("ids of another type in the wrong place, as their owner: 404 (unless the number is also one of the owner's of that type)", async () => {
    const A_ids = {
      portfolio: [a.portfolio, a.portfolio2, a.keyedPortfolio],
      deal: [a.deal, a.keyedDeal],
      watchlist: [a.watchlist, a.keyedWatchlist],
      item: [a.item],
      asset: [a.asset, a.keyedAsset],
      notification: [a.priceAlert, a.activeAlert, a.changeAlert, a.portfolioAlert, a.watchlistAlert, a.keyedAlert],
    };
    const alicePortfolios = (await call('GET', '/api/portfolios', { user: A })).body.data.map((p: { id: number }) => p.id);
    const aliceWatchlists = (await call('GET', '/api/watchlists', { user: A })).body.data;
    const aliceDeals = (await call('GET', `/api/portfolios/${a.portfolio2}/deals?per_page=100`, { user: A })).body.data.map((d: { id: number }) => d.id);
    const mine = {
      portfolio: new Set<number>(alicePortfolios),
      watchlist: new Set<number>(aliceWatchlists.map((w: { id: number }) => w.id)),
      item: new Set<number>(aliceWatchlists.find((w: { id: number }) => w.id === a.watchlist).items.map((i: { id: number }) => i.id)),
      deal: new Set<number>(aliceDeals),
      asset: new Set<number>((await call('GET', '/api/custom-assets', { user: A })).body.data.map((x: { id: number }) => x.id)),
      notification: new Set<number>((await call('GET', '/api/notifications?per_page=100', { user: A })).body.data.map((x: { id: number }) => x.id)),
    };
    const others = [...new Set([...Object.values(A_ids).flat(), ...a.firings, stack.shareIds.SBER!, stack.shareIds.GAZP!, b.portfolio, b.watchlist, b.item, b.deal, b.asset, b.alert])];
    const wrong: string[] = [];
    // Read-only or refused-anyway probes: a wrongly accepted one is itself the finding.
    const probes: [keyof typeof mine, (id: number) => [string, string, unknown?]][] = [
      ['portfolio', (id) => ['GET', `/api/portfolios/${id}`]],
      ['portfolio', (id) => ['GET', `/api/portfolios/${id}/statistics`]],
      ['portfolio', (id) => ['GET', `/api/portfolios/${id}/holdings`]],
      ['portfolio', (id) => ['GET', `/api/portfolios/${id}/history`]],
      ['portfolio', (id) => ['GET', `/api/portfolios/${id}/dividends`]],
      ['portfolio', (id) => ['GET', `/api/portfolios/${id}/deals`]],
      ['deal', (id) => ['DELETE', `/api/portfolios/${a.portfolio2}/deals/${id}`]],
      ['item', (id) => ['DELETE', `/api/watchlists/${a.watchlist}/items/${id}`]],
      ['watchlist', (id) => ['POST', `/api/watchlists/${id}/items`, { assetable: stack.share('GAZP') }]],
      ['asset', (id) => ['PATCH', `/api/custom-assets/${id}`, { description: 'probe' }]],
    ];
    for (const [type, probe] of probes) {
      for (const id of others) {
        if (mine[type].has(id)) continue;
        const [method, path, body] = probe(id);
        const r = await call(method, path, { user: A, body });
        if (![404, 422].includes(r.status)) wrong.push(`${method} ${path} (${type} ${id}) -> ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
    // Firing ids and chat message ids where a notification / chat id is expected.
    for (const id of a.firings.filter((f) => !mine.notification.has(f))) {
      const r = await call('DELETE', `/api/notifications/${id}`, { user: A });
      if (r.status !== 404) wrong.push(`DELETE /api/notifications/${id} (firing) -> ${r.status}`);
    }
    for (const [method, path] of [
      ['GET', `/api/ai-chat/${a.answer}`],
      ['DELETE', `/api/ai-chat/${a.question}`],
      ['GET', `/api/ai-chat/${a.answer}/messages/${a.chat}/stream`],
      ['POST', `/api/ai-chat/${a.answer}/messages/${a.chat}/stop`],
      ['POST', `/api/ai-chat/${a.healthChat}/messages/${a.answer}/stop`],
      ['GET', `/api/ai-chat/${a.healthChat}/messages/${a.answer}/stream`],
    ] as const) {
      const r = await call(method, path, { user: A });
      if (r.status !== 404) wrong.push(`${method} ${path} -> ${r.status} ${r.text.slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("after everything: Alice's data is as it was", () => {
  it('every view of Alice is unchanged', async () => {
    const after = await aliceView();
    // The streaming answer finished meanwhile (her own action); everything else is compared whole.
    for (const k of Object.keys(before)) expect(after[k], k).toEqual(before[k]);
  });

  it("Alice's resources all still answer her, with her values", async () => {
    expect((await call('GET', `/api/portfolios/${a.portfolio2}`, { user: A })).status).toBe(200);
    const deals = (await call('GET', `/api/portfolios/${a.portfolio}/deals`, { user: A })).body.data;
    expect(deals.map((d: { id: number }) => d.id)).toEqual([a.deal]);
    const chat = (await call('GET', `/api/ai-chat/${a.chat}`, { user: A })).body.data;
    expect(chat.messages.find((m: { id: string }) => m.id === a.answer)).toMatchObject({ rating: 'like', rating_comment: 'alice liked it' });
    const assets = (await call('GET', '/api/custom-assets', { user: A })).body.data;
    expect(assets.find((x: { id: number }) => x.id === a.asset)).toMatchObject({ name: 'Alice flat', ticker: 'AFLAT' });
    const ns = (await call('GET', '/api/notifications?per_page=100', { user: A })).body.data;
    expect(ns.find((n: { id: number }) => n.id === a.activeAlert)).toMatchObject({ is_active: true });
    expect(ns.find((n: { id: number }) => n.id === a.priceAlert)).toMatchObject({ is_active: false });
    const inbox = (await call('GET', '/api/notification-events', { user: A })).body;
    expect(inbox.meta.unread_count).toBe(2);
  });
});

describe('a live firing of Alice', () => {
  it("reaches Alice's notification stream and not Bob's (both open before it fires)", async () => {
    const aliceStream = await sse('GET', '/api/notification-events/stream', A);
    const bobCall = call('GET', '/api/notification-events/stream', { user: B, timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 700));
    const n = (await ok('POST', '/api/price-alert', A, { target_price: 180, assetable: stack.share('GAZP'), name: 'GAZP 180' })).data.id;
    await stack.applyRates([{ ticker: 'GAZP', rate: 179, change: 0 }]);
    const first = await Promise.race([aliceStream.next(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 4000))]);
    aliceStream.drop();
    expect(first).toMatchObject({ event: 'notification', data: { notification_id: n } });
    const bob = await bobCall;
    expect(bob.status).toBe(200);
    expect(bob.text).toContain(': connected');
    expect(bob.text).not.toContain('event: notification');
  });
});
