/**
 * The AI chat end to end for tests: screener (demo data), portfolios, billing, chat and the gateway on fresh
 * databases and one unique bus prefix, with the local OpenAI-compatible streaming server as the model.
 */
import { busName, createLogger, type Db } from '@invest/platform';
import { createTestDatabase, testNatsUrl } from '@invest/platform/testing/index';
import { type BillingApp, createBillingApp } from '@invest/billing/billing.app';
import { type ChatApp, createChatApp } from '@invest/chat/chat.app';
import { type FakeOpenAi, startFakeOpenAi } from '@invest/chat/testing/fake-openai';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type FullStack, startFullStack } from './full-stack.js';
import { type ApiAnswer, type ApiOptions, gatewayApi } from './gateway-api.js';
import { readSse } from './sse-reader.js';

const JWT_SECRET = 'chat-e2e-secret-0123456789-0123456789-xyz';
export const OPENAI_KEY = 'sk-test-chat-e2e';
export const CP_SECRET = 'chat_e2e_cp_secret';

export interface ChatStack {
  base: string;
  full: FullStack;
  chat: ChatApp;
  chatDb: Db;
  billing: BillingApp;
  model: FakeOpenAi;
  /** The chat service's clock; tests move it. */
  clock: { now: Date };
  /** Billing's clock: the real time while `now` is null (the default); a test that sets it puts it back. */
  billingClock: { now: Date | null };
  token(userId: string): Promise<string>;
  /** An HTTP call to the gateway (`gatewayApi`). */
  api(method: string, path: string, opts?: ApiOptions): Promise<ApiAnswer>;
  /** Creates a chat of `userId` (a support chat unless `body` says otherwise) and gives its id; fails unless 201. */
  createChat(userId: string, body?: Record<string, unknown>): Promise<string>;
  /** An SSE request to the gateway as `user`, read as it arrives (`readSse`). */
  openSse(method: string, path: string, opts: { user: string; body?: unknown; headers?: Record<string, string> }): Promise<ReturnType<typeof readSse>>;
  /** Starts another chat instance on the same database and bus (NATS shares the requests between them). */
  addInstance(): Promise<ChatApp>;
  close(): Promise<void>;
}

export interface ChatStackOptions {
  heartbeatMs?: number;
  idleTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** No API key: the built-in offline responder answers. */
  offline?: boolean;
  requestTimeoutMs?: number;
  /** Another OpenAI-compatible server as the model (a test's scripted one); the local fake still runs, unused. */
  model?: { url: string; apiKey: string };
  /** The chat service on the real clock (`clock` then unused): answers take their own times, and orphans age. */
  realClock?: boolean;
  /** Daily token budgets by plan (the chat's defaults otherwise). */
  tokenBudgets?: { free: number | null; paid: number | null };
}

export async function startChatStack(name: string, opts: ChatStackOptions = {}): Promise<ChatStack> {
  const full = await startFullStack({
    name,
    tickers: ['SBER', 'GAZP'],
    gateway: {
      auth: { jwtSecret: JWT_SECRET },
      rpcTimeoutMs: 10_000,
      chatHeartbeatMs: opts.heartbeatMs ?? 15_000,
      // A short whole-request timeout: an answer streaming for longer must not be cut by it.
      ...(opts.requestTimeoutMs ? { http: { headersTimeoutMs: opts.requestTimeoutMs, requestTimeoutMs: opts.requestTimeoutMs, keepAliveTimeoutMs: 5000, maxConnections: 1000 } } : {}),
    },
  });
  const logger = createLogger('test', 'silent');
  const natsUrl = testNatsUrl();
  const billingDb = await createTestDatabase(`${name}_bil`);
  const chatDb = await createTestDatabase(`${name}_chat`);
  const billingClock: { now: Date | null } = { now: null };
  const billing = await createBillingApp({
    databaseUrl: billingDb.url,
    clock: () => billingClock.now ?? new Date(),
    natsUrl,
    busPrefix: full.busPrefix,
    logger,
    cloudPayments: { baseUrl: 'http://127.0.0.1:9', publicId: 'pk_chat', apiSecret: CP_SECRET, timeoutMs: 500, retries: 0, backoffMs: 10 },
    relayPollMs: 100,
  });
  const model = await startFakeOpenAi({ apiKey: OPENAI_KEY });
  const clock = { now: new Date() };
  const chatOptions = {
    databaseUrl: chatDb.url,
    natsUrl,
    busPrefix: full.busPrefix,
    logger,
    clock: opts.realClock ? () => new Date() : () => clock.now,
    openai: {
      baseUrl: opts.model?.url ?? model.url,
      ...(opts.offline ? {} : { apiKey: opts.model?.apiKey ?? OPENAI_KEY }),
      connectTimeoutMs: opts.connectTimeoutMs ?? 5000,
      idleTimeoutMs: opts.idleTimeoutMs ?? 10_000,
      maxRetries: 0,
    },
    streamMaxAgeMs: 60_000,
    // Long enough that only a billing event can make a new plan apply within a test.
    entitlementsTtlMs: 120_000,
    shutdownDrainMs: 0,
    ...(opts.tokenBudgets ? { tokenBudgets: opts.tokenBudgets } : {}),
  };
  const chat = await createChatApp(chatOptions);
  const instances: ChatApp[] = [chat];
  const token = (userId: string) => mintDevToken(userId, JWT_SECRET);
  const api = gatewayApi(full.base, token);
  return {
    base: full.base,
    full,
    chat,
    chatDb: chat.db,
    billing,
    model,
    clock,
    billingClock,
    token,
    api,
    async createChat(userId, body = { context_type: 'support' }) {
      const r = await api('POST', '/api/ai-chat', { user: userId, body });
      if (r.status !== 201) throw new Error(`creating a chat answered ${r.status}: ${r.text}`);
      return r.body.data.id as string;
    },
    async openSse(method, path, o) {
      const ac = new AbortController();
      const headers: Record<string, string> = { ...o.headers, authorization: `Bearer ${await token(o.user)}`, accept: 'text/event-stream' };
      if (o.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(new URL(path, full.base), { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal: ac.signal });
      return readSse(res, ac);
    },
    async addInstance() {
      const app = await createChatApp(chatOptions);
      instances.push(app);
      return app;
    },
    async close() {
      await full.gw.close();
      for (const i of instances.reverse()) await i.close();
      await billing.close();
      await model.close();
      for (const s of ['CHAT_STREAMS', 'BILLING_EVENTS']) await full.bus.jsm.streams.delete(busName(full.busPrefix, s)).catch(() => undefined);
      await full.close();
      await chatDb.drop();
      await billingDb.drop();
    },
  };
}
