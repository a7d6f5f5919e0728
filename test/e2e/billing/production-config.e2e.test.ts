/**
 * Billing configured as in production:
 *  1. CLOUDPAYMENTS_ACCEPT_TEST_PAYMENTS=false (the production default): no test-mode payment grants a
 *     subscription, whether a form says `TestMode=1` or a JSON notification `"TestMode": true` or `1` (a JSON
 *     `true` once granted a paid subscription for an emulated payment).
 *  2. BILLING_PRICE_BASIC_M=299 (no decimals) is kept as 299.00: every client subscribe had been a 422
 *     (the strings "299.00" and "299" compared), and GET /api/plans broke the money contract.
 */
import { randomUUID } from 'node:crypto';
import { moneyAmountSchema } from '@invest/contracts';
import { connectBus, createLogger, streamNameOf } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { type BillingApp, createBillingApp } from '@invest/billing/billing.app';
import { signCloudPayments } from '@invest/billing/testing/billing-test-kit';
import { type FakeCloudPayments, payNotificationFields, sendSignedNotification, startFakeCloudPayments } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { createGatewayApp, type GatewayApp } from '@invest/gateway/gateway.app';

const SECRET = 'adv_cp_secret_0123456789';
const JWT = 'adv-billing-jwt-secret-0123456789-0123456789';

interface MiniStack {
  base: string;
  billing: BillingApp;
  provider: FakeCloudPayments;
  close(): Promise<void>;
}

/** A billing + gateway stack like support/billing-stack.ts, with test payments refused or prices as configured. */
async function startStack(name: string, opts: { acceptTestPayments: boolean; prices?: { basicMonthly: string; basicYearly: string; currency: string } }): Promise<MiniStack> {
  const busPrefix = `${uniqueName(name)}.`;
  const logger = createLogger('test', 'silent');
  const database = await createTestDatabase(name);
  const provider = await startFakeCloudPayments({ publicId: 'pk_adv', apiSecret: SECRET });
  const billing = await createBillingApp({
    databaseUrl: database.url,
    natsUrl: testNatsUrl(),
    busPrefix,
    logger,
    ...(opts.prices ? { prices: opts.prices } : {}),
    relayPollMs: 100,
    cloudPayments: { baseUrl: provider.url, publicId: 'pk_adv', apiSecret: SECRET, acceptTestPayments: opts.acceptTestPayments, timeoutMs: 2000, retries: 1, backoffMs: 50 },
  });
  const gw: GatewayApp = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix, logger, auth: { jwtSecret: JWT }, rpcTimeoutMs: 10_000 });
  const base = await gw.listen(0, '127.0.0.1');
  return {
    base,
    billing,
    provider,
    async close() {
      await gw.close();
      await billing.close();
      await provider.close();
      const bus = await connectBus({ natsUrl: testNatsUrl(), name: `${name}-cleanup`, prefix: busPrefix });
      await bus.jsm.streams.delete(streamNameOf(bus, 'billing')).catch(() => undefined);
      await bus.close();
      await database.drop();
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely
async function api(s: MiniStack, method: string, path: string, opts: { user?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (opts.user) headers.authorization = `Bearer ${await mintDevToken(opts.user, JWT)}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(new URL(path, s.base), { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const user = () => `u-${randomUUID().slice(0, 8)}`;

describe('production: test-mode payments (CLOUDPAYMENTS_ACCEPT_TEST_PAYMENTS=false)', () => {
  let s: MiniStack;
  beforeAll(async () => {
    // As NODE_ENV=production configures it (billing.config.test.ts).
    s = await startStack('billprod', { acceptTestPayments: false });
  });
  afterAll(async () => {
    await s?.close();
  });

  const sendJson = async (u: string, testMode: string) => {
    const p = s.provider.addPayment({ AccountId: u, Amount: 299, TestMode: true });
    const raw = Buffer.from(
      `{"TransactionId":${p.TransactionId},"Amount":299.00,"Currency":"RUB","PaymentAmount":299.00,"PaymentCurrency":"RUB","OperationType":"Payment","AccountId":"${u}","Status":"Completed","TestMode":${testMode},"GatewayName":"Test","AuthCode":"A1B2C3"}`,
    );
    const res = await fetch(new URL('/api/provider/payment-success', s.base), { method: 'POST', headers: { 'content-type': 'application/json', 'content-hmac': signCloudPayments(raw, SECRET)['Content-HMAC'] }, body: raw });
    return { status: res.status, body: await res.text() };
  };

  it('baseline: a form Pay with TestMode=1 grants nothing', async () => {
    const u = user();
    const p = s.provider.addPayment({ AccountId: u, Amount: 299, TestMode: true });
    expect((await sendSignedNotification(new URL('/api/provider/payment-success', s.base).toString(), payNotificationFields(p), SECRET)).status).toBe(200);
    expect((await api(s, 'GET', '/api/subscription', { user: u })).body).toEqual({ data: null });
  });

  it('baseline: a JSON Pay with "TestMode": 1 grants nothing', async () => {
    const u = user();
    expect((await sendJson(u, '1')).status).toBe(200);
    expect((await api(s, 'GET', '/api/subscription', { user: u })).body).toEqual({ data: null });
  });

  it('a JSON Pay with "TestMode": true (boolean, as the provider writes it in JSON) grants nothing either', async () => {
    const u = user();
    expect((await sendJson(u, 'true')).status).toBe(200);
    // Before the fix: an active basic-m subscription for an emulated (test) payment.
    expect((await api(s, 'GET', '/api/subscription', { user: u })).body).toEqual({ data: null });
  });
});

describe('prices configured without two decimals (BILLING_PRICE_BASIC_M=299, accepted by config validation)', () => {
  let s: MiniStack;
  beforeAll(async () => {
    s = await startStack('billprice', { acceptTestPayments: true, prices: { basicMonthly: '299', basicYearly: '2990.5', currency: 'RUB' } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('GET /api/plans answers prices as two-place decimal strings (the money contract)', async () => {
    const res = await api(s, 'GET', '/api/plans');
    const paid = res.body.data.filter((p: { paid: boolean }) => p.paid);
    // Before the fix: "299" and "2990.5"
    for (const p of paid) expect(moneyAmountSchema.safeParse(p.price).success, `price ${p.price}`).toBe(true);
  });

  it('POST /api/subscribe for a payment of exactly the configured price succeeds', async () => {
    const u = user();
    const uuid = randomUUID();
    s.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid });
    const res = await api(s, 'POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } });
    // Before the fix: 422 "The payment amount 299.00 RUB does not match the basic-m price 299 RUB."
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});
