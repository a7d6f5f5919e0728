/**
 * `npm run test:chaos`: the whole system under failure. A private NATS (a three-node JetStream cluster with
 * JETSTREAM_REPLICAS=3 once the cluster kit is there), two instances of every service and of the gateway as
 * real processes on fresh databases, the outside providers faked here. A mixed workload runs for
 * CHAOS_DURATION_S (default 75) while a NATS node is killed and restarted, one instance of each service is
 * killed and restarted, and one is paused past the RPC timeout. Then the databases and the API must show
 * nothing lost and nothing doubled; a summary is printed (and written to .runtime/chaos-summary.json).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cloudPaymentsForm, type FakeCloudPayments, payNotificationFields, startFakeCloudPayments } from '@invest/billing/testing/fake-cloudpayments';
import { signCloudPayments } from '@invest/billing/provider/cloudpayments-signature';
import { type FakeOpenAi, startFakeOpenAi } from '@invest/chat/testing/fake-openai';
import { FakeProviders } from '@invest/screener/testing/fake-providers';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChaosClient } from './support/chaos-client.js';
import { type ChaosNats, startChaosNats } from './support/chaos-nats.js';
import { type ChaosStack, SERVICES, type ServiceName, startChaosStack } from './support/chaos-stack.js';

const root = join(import.meta.dirname, '..', '..');
const DURATION_MS = Number(process.env.CHAOS_DURATION_S ?? 75) * 1000;
const RPC_TIMEOUT_MS = 2000;
const JWT_SECRET = 'chaos-secret-0123456789-0123456789-abcdef';
const CP_SECRET = 'chaos_cloudpayments_secret';
const OPENAI_KEY = 'sk-chaos';
const TICKER = 'SBER';
const WATCH_TICKERS = ['GAZP', 'LKOH', 'YNDX', 'GMKN', 'ROSN', 'NVTK'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const exec = promisify(execFile);

let nats: ChaosNats;
let stack: ChaosStack;
let market: FakeProviders;
let cloudPayments: FakeCloudPayments;
let model: FakeOpenAi;
let client: ChaosClient;
const dbs = {} as Record<(typeof SERVICES)[number], pg.Pool>;

/** One failure injected, for the summary. */
const injected: { at: number; what: string }[] = [];
let started = 0;
const note = (what: string) => injected.push({ at: Date.now() - started, what });
let natsDown: { from: number; to: number } | undefined;

beforeAll(async () => {
  nats = await startChaosNats();
  market = await FakeProviders.start({ live: true, recordRequests: false });
  market.setCell('shares', 'marketdata', TICKER, 'TQBR', 'LAST', 200);
  cloudPayments = await startFakeCloudPayments({ publicId: 'pk_chaos', apiSecret: CP_SECRET });
  // ~1.5 s per answer: long enough that kills land while answers stream.
  model = await startFakeOpenAi({ apiKey: OPENAI_KEY, defaultScript: { chunks: Array.from({ length: 15 }, (_, i) => `word${i} `), delayMs: 100 } });
  stack = await startChaosStack({
    natsUrl: nats.url,
    replicas: nats.replicas,
    rpcTimeoutMs: RPC_TIMEOUT_MS,
    jwtSecret: JWT_SECRET,
    providers: {
      MOEX_ISS_URL: market.moexUrl,
      COINGECKO_URL: market.coingeckoUrl,
      MOEX_ISS_MIN_INTERVAL_MS: '0',
      CLOUDPAYMENTS_API_URL: cloudPayments.url,
      CLOUDPAYMENTS_PUBLIC_ID: 'pk_chaos',
      CLOUDPAYMENTS_API_SECRET: CP_SECRET,
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: OPENAI_KEY,
    },
    env: {
      // The test runs the rate job itself (a batch each few seconds); the sweeps stay as they are.
      JOBS_ENABLED: 'false',
      BILLING_JOBS_ENABLED: 'false',
      OPENAI_IDLE_TIMEOUT_MS: '10000',
      OPENAI_MAX_RETRIES: '0',
      CHAT_ORPHAN_SWEEP_MS: '5000',
    },
  });
  for (const s of SERVICES) dbs[s] = new pg.Pool({ connectionString: stack.databases[s], max: 2 });
  client = new ChaosClient(stack.gatewayUrls, JWT_SECRET);
}, 240_000);

afterAll(async () => {
  for (const p of Object.values(dbs)) await p.end().catch(() => undefined);
  await stack?.stop();
  await nats?.stop();
  await market?.close();
  await cloudPayments?.close();
  await model?.close();
});

/** Runs the screener's rate job as `npm run cmd` does, beside the running services. */
async function runJob(service: ServiceName, name: string, ...args: string[]): Promise<void> {
  await exec(process.execPath, [join(root, 'scripts', 'cmd.mjs'), name, ...args], { cwd: root, env: { ...stack.envOf(service), LOG_LEVEL: 'warn' }, timeout: 60_000 });
}

// ---------------------------------------------------------------- workload

let sberBase = 200;
const shareIds: Record<string, number> = {};
const accepted = {
  portfolios: [] as { key: string; id: number; user: string }[],
  deals: [] as { portfolioId: number; price: string; id: number }[],
  dealsUnknown: [] as { portfolioId: number; price: string }[],
  alerts: [] as { id: number; user: string; operator: string; value: number }[],
  payments: new Map<number, string>(),
  paymentsUnknown: new Set<number>(),
  chatAnswers: 0,
  rateBatches: 0,
};
const rateJobMs: number[] = [];

async function workers(until: number): Promise<void> {
  const users = Array.from({ length: 8 }, (_, i) => `chaos-u${i}`);
  const portfolioOf = new Map<string, number>();
  const watchlistOf = new Map<string, { id: number; items: Map<string, number> }>();
  for (const u of users) {
    const p = await client.create('create portfolio', '/api/portfolios', u, { name: `P ${u}`, currency_code: 'RUB' });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    accepted.portfolios.push({ key: `P ${u}`, id: p.body.data.id, user: u });
    portfolioOf.set(u, p.body.data.id);
    const w = await client.create('create watchlist', '/api/watchlists', u, { name: `W ${u}` });
    expect(w.status, JSON.stringify(w.body)).toBe(201);
    watchlistOf.set(u, { id: w.body.data.id, items: new Map() });
  }
  const pick = <T>(a: T[]) => a[Math.floor(Math.random() * a.length)]!;
  let dealNo = 0;

  const deals = async () => {
    while (Date.now() < until) {
      const u = pick(users);
      const portfolioId = portfolioOf.get(u)!;
      // A price unique in the run names the deal: each accepted one must be there exactly once.
      const price = (100 + ++dealNo / 100).toFixed(2);
      const body = { type: 'buy', assetable: { type: 'share', id: shareIds[pick([TICKER, ...WATCH_TICKERS])] }, quantity: 1, price, commission: 0, date: '2024-01-10' };
      const a = await client.create('create deal', `/api/portfolios/${portfolioId}/deals`, u, body);
      if (a.status === 201) accepted.deals.push({ portfolioId, price, id: a.body.data.id });
      else accepted.dealsUnknown.push({ portfolioId, price });
      if (Math.random() < 0.1) {
        const key = `P ${u} ${randomUUID().slice(0, 8)}`;
        const p = await client.create('create portfolio', '/api/portfolios', u, { name: key, currency_code: 'USD' }, { allowed: [422] });
        if (p.status === 201) accepted.portfolios.push({ key, id: p.body.data.id, user: u });
      }
      await client.request('read statistics', 'GET', `/api/portfolios/${portfolioId}/statistics`, { user: u, allowed: [404] });
    }
  };

  const watchlists = async () => {
    while (Date.now() < until) {
      const u = pick(users);
      const w = watchlistOf.get(u)!;
      const ticker = pick(WATCH_TICKERS);
      const itemId = w.items.get(ticker);
      if (itemId === undefined) {
        // 422: already there (an earlier add answered 503 but was done).
        const a = await client.create('add watchlist item', `/api/watchlists/${w.id}/items`, u, { assetable: { type: 'share', id: shareIds[ticker] } }, { allowed: [422] });
        if (a.status === 201) w.items.set(ticker, a.body.data.id);
      } else {
        // 404: a repeat of a delete that answered 503 but was done.
        const d = await client.request('remove watchlist item', 'DELETE', `/api/watchlists/${w.id}/items/${itemId}`, { user: u, write: true, allowed: [404] });
        if (d.status === 204 || d.status === 404) w.items.delete(ticker);
      }
      await sleep(100);
    }
  };

  /** A rate batch every few seconds: SBER up 5 % (more than the fake's ±1 % drift twice), so rates only rise. */
  const rates = async () => {
    while (Date.now() < until) {
      sberBase = +(sberBase * 1.05).toFixed(2);
      market.setCell('shares', 'marketdata', TICKER, 'TQBR', 'LAST', sberBase);
      const t0 = Date.now();
      // The every-minute variant: the assets held in portfolios (SBER and the deals' shares).
      await runJob('screener', 'get:assetRates', '--only_used_assets')
        .then(() => {
          accepted.rateBatches++;
          rateJobMs.push(Date.now() - t0);
        })
        .catch((err: unknown) => note(`rate job failed: ${(err as Error).message.split('\n')[0]}`));
      await sleep(4000);
    }
  };

  const alerts = async () => {
    const alertUsers = Array.from({ length: 10 }, (_, i) => `chaos-a${i}`);
    const made = new Map<string, number>();
    while (Date.now() < until) {
      const u = pick(alertUsers);
      if ((made.get(u) ?? 0) >= 3) {
        await sleep(200);
        continue;
      }
      // Above the latest rate by more than the drift, below the next one: fires on the next batch.
      const target = +(sberBase * 1.025).toFixed(2);
      const a = await client.create('create price alert', '/api/price-alert', u, { target_price: target, assetable: { type: 'share', id: shareIds[TICKER] }, name: `SBER ${target}` }, { allowed: [422] });
      if (a.status === 201) {
        made.set(u, (made.get(u) ?? 0) + 1);
        accepted.alerts.push({ id: a.body.data.id, user: u, operator: a.body.data.condition.operator, value: Number(a.body.data.condition.value) });
      }
      await client.request('read notifications', 'GET', '/api/notification-events', { user: u });
      await sleep(300);
    }
  };

  const webhooks = async () => {
    let tx = 4_000_000_000 + Math.floor(Math.random() * 1_000_000);
    const payers = Array.from({ length: 6 }, (_, i) => `chaos-p${i}`);
    while (Date.now() < until) {
      const id = tx++;
      // The provider's recurring charges (each names the payer's subscription): a widget purchase of the same plan
      // minutes after the last one would be a repeat, refunded through the provider instead of extending.
      const payer = pick(payers);
      const fields = payNotificationFields({ TransactionId: id, Amount: 299, Currency: 'RUB', InvoiceId: null, AccountId: payer, Status: 'Completed', SubscriptionId: `sc_${payer}`, TestMode: true });
      const data = Buffer.from(cloudPaymentsForm(fields));
      const raw = { data, headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-hmac': signCloudPayments(data, CP_SECRET)['Content-HMAC'] } };
      // The provider repeats a notification until it hears {"code":0}, and sometimes twice anyway.
      const sends = 1 + Math.floor(Math.random() * 3);
      const results = await Promise.all(
        Array.from({ length: sends }, async () => {
          for (let i = 0; i < 100; i++) {
            const a = await client.request('Pay webhook', 'POST', '/api/provider/payment-success', { raw, write: true });
            if (a.status === 200) return true;
            await sleep(300);
          }
          return false;
        }),
      );
      if (results.some(Boolean)) accepted.payments.set(id, String(fields.AccountId));
      else accepted.paymentsUnknown.add(id);
      await sleep(500);
    }
  };

  const chat = async (n: number) => {
    const u = `chaos-c${n}`;
    const c = await client.create('create chat', '/api/ai-chat', u, { context_type: 'support' });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    // The free plan answers 10 support messages a day.
    for (let i = 0; i < 9 && Date.now() < until; i++) {
      const a = await client.request('chat message (streamed)', 'POST', `/api/ai-chat/${c.body.data.id}/messages`, { user: u, body: { message: `question ${i}` }, stream: true, allowed: [429] });
      if (a.status === 200) accepted.chatAnswers++;
      await sleep(1500 + Math.random() * 2000);
    }
  };

  await Promise.all([deals(), deals(), watchlists(), rates(), alerts(), webhooks(), webhooks(), ...[0, 1, 2, 3].map(chat)]);
}

// ---------------------------------------------------------------- chaos

async function chaos(until: number): Promise<void> {
  const at = (fraction: number) => started + fraction * DURATION_MS;
  const waitUntil = async (t: number) => sleep(Math.max(0, t - Date.now()));
  const tasks: Promise<void>[] = [];

  // A NATS node: killed at 25 % of the run, back at 45 %.
  tasks.push(
    (async () => {
      await waitUntil(at(0.25));
      const node = Math.floor(Math.random() * nats.nodes);
      await nats.kill(node);
      natsDown = { from: Date.now(), to: Number.NaN };
      note(`SIGKILL nats node ${node}`);
      await waitUntil(at(0.45));
      await nats.restart(node);
      natsDown.to = Date.now();
      note(`restarted nats node ${node}`);
    })(),
  );

  // One instance of each service and of the gateway: killed at a random moment, restarted 2-4 s later.
  const kills = new Map<ServiceName, { from: number; to: number }>();
  for (const service of [...SERVICES, 'gateway' as const]) {
    const from = at(0.1 + Math.random() * 0.6);
    const to = from + 2000 + Math.random() * 2000;
    kills.set(service, { from, to });
    const victim = stack.instances[service][Math.floor(Math.random() * 2)]!;
    tasks.push(
      (async () => {
        await waitUntil(from);
        await victim.kill();
        note(`SIGKILL ${victim.name}`);
        await waitUntil(to);
        const attempts = await victim.restart();
        note(`${victim.name} restarted and serving${attempts > 1 ? ` (${attempts} starts: NATS unreachable at first)` : ''}`);
      })(),
    );
  }

  // One instance paused past the RPC timeout, in a service whose other instance is not down meanwhile.
  const pauseMs = RPC_TIMEOUT_MS + 3000;
  const from = at(0.55 + Math.random() * 0.2);
  const candidates = SERVICES.filter((s) => {
    const k = kills.get(s)!;
    return k.to + 1000 < from || k.from > from + pauseMs + 1000;
  });
  const service = candidates.length ? candidates[Math.floor(Math.random() * candidates.length)]! : 'portfolios';
  const paused = stack.instances[service][Math.floor(Math.random() * 2)]!;
  tasks.push(
    (async () => {
      await waitUntil(from);
      paused.pause();
      note(`SIGSTOP ${paused.name} for ${pauseMs} ms`);
      await sleep(pauseMs);
      paused.resume();
      note(`SIGCONT ${paused.name}`);
    })(),
  );
  await Promise.all(tasks);
  await waitUntil(until);
}

// ---------------------------------------------------------------- checks

const q = async <T = Record<string, unknown>>(service: (typeof SERVICES)[number], sql: string, params: unknown[] = []): Promise<T[]> =>
  (await dbs[service].query(sql, params)).rows as T[];

/** Consumers with an inbox: where they live, the service whose events they read, and which events. */
const CONSUMERS = [
  { db: 'alerts', name: 'alerts__rates-updated', source: 'screener', types: ['RatesUpdated'] },
  { db: 'alerts', name: 'alerts__portfolio-events', source: 'portfolios', types: null },
  { db: 'portfolios', name: 'portfolios__rates-updated', source: 'screener', types: ['RatesUpdated'] },
  { db: 'portfolios', name: 'portfolios__asset-updated', source: 'screener', types: ['AssetUpdated'] },
  { db: 'screener', name: 'screener__used-assets', source: 'portfolios', types: null },
] as const;

async function eventIds(source: (typeof SERVICES)[number], types: readonly string[] | null) {
  return q<{ id: string; recorded_at: Date }>(source, 'select event_id::text as id, recorded_at from es_events where $1::text[] is null or type = any($1::text[])', [types]);
}

/** Waits until every consumer has every event of its source in its inbox (or the time is up). */
async function settle(timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let missing = 0;
    for (const c of CONSUMERS) {
      const want = (await eventIds(c.source, c.types)).length;
      const [row] = await q<{ n: number }>(c.db, 'select count(*)::int as n from es_inbox where consumer = $1', [c.name]);
      missing += Math.max(0, want - row!.n);
    }
    const [chat] = await q<{ streaming: number }>('chat', "select count(*)::int as streaming from chat_messages where status = 'streaming'");
    if ((missing === 0 && chat!.streaming === 0) || Date.now() > end) return;
    await sleep(1000);
  }
}

/** The summary as a person reads it (the JSON has the same figures). */
function formatSummary(s: {
  durationS: number;
  natsNodes: number;
  replicas: number;
  requests: Record<string, Record<string, number>>;
  failuresInjected: string[];
  longestWriteOutageMs: number;
  eventsDuringNodeLoss: number;
  eventDelayDuringNodeLossP99Ms: number;
  createsRetriedAfter503: number;
  accepted: Record<string, number>;
  chatAnswersByStatus: Record<string, number>;
  failures: string[];
}): string {
  const lines = [
    `[chaos] ${s.durationS} s of workload; NATS ${s.natsNodes} nodes, streams R${s.replicas}; 2 instances of every service and of the gateway`,
    'requests (status × count; conn = refused by a killed gateway, sent again to the other):',
    ...Object.entries(s.requests).map(([kind, m]) => `  ${kind.padEnd(24)} ${Object.entries(m).map(([st, n]) => `${st}×${n}`).join('  ')}`),
    'failures injected:',
    ...s.failuresInjected.map((f) => `  ${f}`),
    `longest time no write was accepted: ${s.longestWriteOutageMs} ms`,
    `events recorded during the node loss: ${s.eventsDuringNodeLoss}, delivered to their consumers with p99 ${s.eventDelayDuringNodeLossP99Ms} ms`,
    `creates answered 503 and repeated with their Idempotency-Key: ${s.createsRetriedAfter503}`,
    `accepted: ${Object.entries(s.accepted).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `chat answers: ${Object.entries(s.chatAnswersByStatus).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    s.failures.length ? `FAILED:\n${s.failures.map((f) => `  ${f}`).join('\n')}` : 'checks: every invariant held',
  ];
  return lines.join('\n');
}

function p99(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!;
}

describe('chaos', () => {
  it(
    'loses and doubles nothing while NATS nodes and service instances die, pause and come back',
    async () => {
      for (const r of await q<{ id: string; ticker: string }>('screener', "select id::text, ticker from assets where type = 'share' and ticker = any($1::text[])", [[TICKER, ...WATCH_TICKERS]])) {
        shareIds[r.ticker] = Number(r.id);
      }
      expect(Object.keys(shareIds).sort()).toEqual([TICKER, ...WATCH_TICKERS].sort());
      // A first batch, so alerts knows the rate the targets are set against.
      await runJob('screener', 'get:assetRates');
      await settle(30_000);

      started = Date.now();
      const until = started + DURATION_MS;
      await Promise.all([workers(until), chaos(until)]);
      const ranMs = Date.now() - started;

      // Every instance serves again; then the backstop sweep, as its schedule would run it, and the queues drain.
      for (const pair of Object.values(stack.instances)) for (const i of pair) await i.started();
      await runJob('alerts', 'notify:price-alerts');
      await settle();

      const failures: string[] = [];
      const fail = (what: string, detail: unknown) => failures.push(`${what}: ${JSON.stringify(detail).slice(0, 800)}`);

      // Every accepted write exists exactly once.
      const pf = await q<{ id: string; name: string }>('portfolios', 'select id::text, name from portfolios');
      for (const p of accepted.portfolios) {
        const rows = pf.filter((r) => r.name === p.key);
        if (rows.length !== 1 || Number(rows[0]!.id) !== p.id) fail('portfolio not there exactly once', { p, rows });
      }
      const deals = await q<{ id: string; portfolio_id: string; price: string }>('portfolios', 'select id::text, portfolio_id::text, price::text from deals');
      const byPrice = new Map<string, number>();
      for (const d of deals) byPrice.set(`${d.portfolio_id}/${Number(d.price).toFixed(2)}`, (byPrice.get(`${d.portfolio_id}/${Number(d.price).toFixed(2)}`) ?? 0) + 1);
      for (const d of accepted.deals) if (byPrice.get(`${d.portfolioId}/${d.price}`) !== 1) fail('accepted deal not there exactly once', { d, n: byPrice.get(`${d.portfolioId}/${d.price}`) });
      for (const d of accepted.dealsUnknown) if ((byPrice.get(`${d.portfolioId}/${d.price}`) ?? 0) > 1) fail('deal of an unanswered create doubled', d);
      if (deals.length > accepted.deals.length + accepted.dealsUnknown.length) fail('more deals than creates', { deals: deals.length, accepted: accepted.deals.length });

      // Every event recorded reached every consumer exactly once: the inbox holds exactly the source's events.
      const delaysDuringLoss: number[] = [];
      const delayByConsumer: Record<string, { events: number; p99Ms: number; maxMs: number }> = {};
      for (const c of CONSUMERS) {
        const want = await eventIds(c.source, c.types);
        const inbox = await q<{ id: string; processed_at: Date }>(c.db, 'select message_id as id, processed_at from es_inbox where consumer = $1', [c.name]);
        const got = new Map(inbox.map((r) => [r.id, r.processed_at]));
        const missing = want.filter((e) => !got.has(e.id));
        const extra = inbox.filter((r) => !want.some((e) => e.id === r.id));
        if (missing.length || extra.length) fail(`consumer ${c.name}`, { missing: missing.length, extra: extra.length });
        if (natsDown) {
          const mine: number[] = [];
          for (const e of want) {
            const t = e.recorded_at.getTime();
            if (t >= natsDown.from && t <= natsDown.to && got.has(e.id)) mine.push(got.get(e.id)!.getTime() - t);
          }
          delaysDuringLoss.push(...mine);
          delayByConsumer[c.name] = { events: mine.length, p99Ms: p99(mine), maxMs: Math.max(0, ...mine) };
        }
      }
      // The effect of the membership events: alerts knows exactly the watchlists' items.
      const items = await q<{ k: string }>('portfolios', "select watchlist_id || '/' || asset_type || '/' || asset_id as k from watchlist_items order by 1");
      const members = await q<{ k: string }>('alerts', "select target_id || '/' || asset_type || '/' || asset_id as k from memberships where target_type = 'watchlist' order by 1");
      if (JSON.stringify(items) !== JSON.stringify(members)) fail('alerts memberships differ from the watchlists', { items: items.length, members: members.length });

      // Every alert step that should have fired fired exactly once (targets above the rate at creation:
      // a later rate at or above the target fires it; rates only rise in this run).
      const [latest] = await q<{ rate: number }>('alerts', "select rate::float8 as rate from latest_rates where asset_type = 'share' and asset_id = $1", [shareIds[TICKER]]);
      const rate = latest?.rate ?? 0;
      const firings = await q<{ notification_id: string; step_key: string }>('alerts', 'select notification_id::text, step_key from notification_firings');
      const notifications = await q<{ id: string }>('alerts', 'select id::text from notifications');
      let expectedFirings = 0;
      for (const a of accepted.alerts) {
        if (notifications.filter((n) => Number(n.id) === a.id).length !== 1) fail('accepted alert not there exactly once', a);
        const fired = firings.filter((f) => Number(f.notification_id) === a.id);
        const should = a.operator === '>=' ? rate >= a.value : rate <= a.value;
        if (should) expectedFirings++;
        if (fired.length !== (should ? 1 : 0)) fail('alert fired a wrong number of times', { a, rate, fired });
      }

      // No payment or subscription period doubled.
      const payments = await q<{ transaction_id: string; user_id: string }>('billing', 'select transaction_id, user_id from subscription_payments');
      const recorded = await q<{ tx: string; n: number }>('billing', "select data->>'paymentId' as tx, count(*)::int as n from es_events where type = 'PaymentRecorded' group by 1");
      const paid = new Map(payments.map((p) => [Number(p.transaction_id), p.user_id]));
      if (payments.length !== paid.size) fail('a TransactionId paid twice', payments.length - paid.size);
      for (const [tx, user] of accepted.payments) if (paid.get(tx) !== user) fail('accepted payment not recorded for its user', { tx, user, got: paid.get(tx) });
      for (const tx of paid.keys()) if (!accepted.payments.has(tx) && !accepted.paymentsUnknown.has(tx)) fail('payment nobody sent', tx);
      if (recorded.some((r) => r.n !== 1)) fail('PaymentRecorded twice', recorded.filter((r) => r.n !== 1));
      const periods = await q<{ id: string; ok: boolean; starts_at: Date; ends_at: Date; n: number }>(
        'billing',
        `select s.id::text, s.starts_at, s.ends_at, count(p.id)::int as n, s.ends_at = s.starts_at + make_interval(months => count(p.id)::int) as ok
           from subscriptions s join subscription_payments p on p.subscription_id = s.id group by s.id`,
      );
      if (periods.some((p) => !p.ok)) fail('subscription period not one month per payment', periods.filter((p) => !p.ok));

      // Every chat answer is complete, or marked stopped/failed.
      const answers = await q<{ status: string; n: number }>('chat', "select status, count(*)::int as n from chat_messages where role = 'assistant' group by 1");
      const streaming = answers.find((a) => a.status === 'streaming');
      if (streaming) fail('chat answers left streaming', streaming.n);

      // The client saw only 2xx, 4xx by design, 503, or a 409 with Retry-After for a keyed create whose first run
      // was still under way; creates answered 503 or 409 were retried to one effect (checked above through the keys' rows).
      if (client.unexpected.length) fail('unexpected answers', client.unexpected.slice(0, 10));
      const crashes = Object.values(stack.instances).flatMap((pair) => pair.flatMap((i) => i.crashes));
      if (crashes.length) fail('an instance died on its own', crashes);

      const summary = {
        durationS: Math.round(ranMs / 1000),
        natsNodes: nats.nodes,
        replicas: nats.replicas,
        requests: Object.fromEntries([...client.counts].map(([k, m]) => [k, Object.fromEntries([...m].sort())])),
        failuresInjected: injected.map((i) => `${(i.at / 1000).toFixed(1)}s ${i.what}`),
        longestWriteOutageMs: client.longestWriteOutageMs(),
        eventsDuringNodeLoss: delaysDuringLoss.length,
        eventDelayDuringNodeLossP99Ms: p99(delaysDuringLoss),
        eventDelayDuringNodeLossByConsumer: delayByConsumer,
        createsRetriedAfter503: client.retriedCreates.length,
        accepted: {
          portfolios: accepted.portfolios.length,
          deals: accepted.deals.length,
          dealsUnanswered: accepted.dealsUnknown.length,
          alerts: accepted.alerts.length,
          alertFirings: expectedFirings,
          payments: accepted.payments.size,
          chatAnswers: accepted.chatAnswers,
          rateBatches: accepted.rateBatches,
        },
        rateJobMs,
        chatAnswersByStatus: Object.fromEntries(answers.map((a) => [a.status, a.n])),
        failures,
      };
      mkdirSync(join(root, '.runtime'), { recursive: true });
      writeFileSync(join(root, '.runtime', 'chaos-summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
      console.log(formatSummary(summary));
      expect(failures).toEqual([]);
    },
    DURATION_MS + 420_000,
  );
});
