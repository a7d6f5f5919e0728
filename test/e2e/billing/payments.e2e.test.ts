/**
 * Billing through HTTP: the real gateway and billing service (and a second billing instance) over real NATS
 * and Postgres, with the local CloudPayments. Signatures are computed here over form bodies with lower-case
 * escaped Cyrillic, as the provider sends them. Covers subscribe (confirmed with the provider), the Pay and
 * Recurrent notifications, exactly-once recording under concurrency, sync, cleanup, entitlements and the
 * read-model rebuild.
 */
import { randomUUID } from 'node:crypto';
import { type Entitlements, Subjects } from '@invest/contracts';
import { testNatsUrl } from '@invest/platform/testing/index';
import { clearOutdatedSubscriptionsJob, rebuildReadModels, signCloudPayments } from '@invest/billing/testing/billing-test-kit';
import { cloudPaymentsForm, type FakePayment, payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { busSubject, createLogger, RpcClient, runJob, streamNameOf } from '@invest/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_SECRET, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
let rpc: RpcClient;

const api: BillingStack['api'] = (...args) => stack.api(...args);

const webhook = () => new URL('/api/provider/payment-success', stack.base).toString();
const pay = (p: FakePayment, extra: Record<string, string> = {}, opts: Parameters<typeof sendSignedNotification>[3] = {}) =>
  sendSignedNotification(webhook(), payNotificationFields(p, extra), CP_SECRET, opts);

async function counts(userId: string) {
  const [row] = await stack.db.query<{ payments: string; subscriptions: string; events: string }>(
    `select (select count(*) from subscription_payments where user_id = $1)::text as payments,
            (select count(*) from subscriptions where user_id = $1)::text as subscriptions,
            (select count(*) from es_events where stream_name = $2)::text as events`,
    [userId, `billing-user-${userId}`],
  );
  return { payments: Number(row!.payments), subscriptions: Number(row!.subscriptions), events: Number(row!.events) };
}

const user = () => `u-${randomUUID().slice(0, 8)}`;
/** `n` calendar months later in UTC, the last day of a shorter month for a later day (Jan 31 + 1 = Feb 28), as billing counts. */
const monthsLater = (d: Date, n: number) => {
  const x = new Date(d);
  const day = x.getUTCDate();
  x.setUTCDate(1);
  x.setUTCMonth(x.getUTCMonth() + n);
  x.setUTCDate(Math.min(day, new Date(Date.UTC(x.getUTCFullYear(), x.getUTCMonth() + 1, 0)).getUTCDate()));
  return x;
};
const monthLater = (d: Date) => monthsLater(d, 1);

beforeAll(async () => {
  stack = await startBillingStack('bill');
  rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'billing-test', defaultTimeoutMs: 5000, busPrefix: stack.gw.config.busPrefix });
  await rpc.connect();
});
afterAll(async () => {
  await rpc?.close();
  await stack?.close();
});

describe('plans', () => {
  it('are public, with the spec ids and exact decimal prices', async () => {
    const res = await api('GET', '/api/plans');
    expect(res.status).toBe(200);
    expect(res.body.data.map((p: { id: number; code: string }) => [p.id, p.code])).toEqual([
      [1, 'basic-m'],
      [2, 'basic-y'],
      [3, 'free'],
      [4, 'free-forever'],
    ]);
    expect(res.body.data[0]).toMatchObject({ price: '299.00', currency: 'RUB', period: 'month', paid: true });
  });
});

describe('POST /api/subscribe', () => {
  it('confirms the payment with the provider, records it once and starts one period; a repeat answers the first result', async () => {
    const u = user();
    const uuid = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid });
    const first = await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'active', usable: true, plan: { code: 'basic-m', id: 1 } });
    expect(new Date(first.body.data.ends_at).getTime()).toBe(monthLater(new Date(first.body.data.starts_at)).getTime());
    const calls = stack.provider.requests.length;
    const again = await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } });
    expect(again).toEqual(first);
    expect(stack.provider.requests.length).toBe(calls);
    expect(await counts(u)).toEqual({ payments: 1, subscriptions: 1, events: 2 });
    const current = await api('GET', '/api/subscription', { user: u });
    expect(current.body.data.id).toBe(first.body.data.id);
    const [row] = await stack.db.query<{ uuid: string; amount: string; platform_id: number }>('select uuid, amount::text, platform_id from subscription_payments where user_id = $1', [u]);
    expect(row).toEqual({ uuid, amount: '299.00', platform_id: 1 });
  });

  it('answers 409 when a subscription is active and this uuid is not recorded, and records nothing', async () => {
    const u = user();
    const a = randomUUID();
    const b = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: a });
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: b });
    expect((await api('POST', '/api/subscribe', { user: u, body: { uuid: a, plan: 'basic-m' } })).status).toBe(200);
    const res = await api('POST', '/api/subscribe', { user: u, body: { uuid: b, plan: 'basic-m' } });
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/active subscription/);
    expect(await counts(u)).toMatchObject({ payments: 1, subscriptions: 1 });
    // Before the payment is looked at (spec: 409 while active), whatever the uuid or plan: the provider is not asked.
    const asked = stack.provider.requests.length;
    for (const plan of ['basic-m', 'basic-y']) {
      const unknown = await api('POST', '/api/subscribe', { user: u, body: { uuid: randomUUID(), plan } });
      expect(unknown.status).toBe(409);
      expect(unknown.body.message).toMatch(/active subscription until \d{4}-/);
    }
    expect(stack.provider.requests.length).toBe(asked);
    // The first uuid again still answers its own result (idempotent by uuid), not a 409.
    expect((await api('POST', '/api/subscribe', { user: u, body: { uuid: a, plan: 'basic-m' } })).status).toBe(200);
  });

  it('422 says whether a field is missing or of another type', async () => {
    const wrong = await api('POST', '/api/subscribe', { user: user(), body: { uuid: 12345, plan: 1 } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ uuid: ['The uuid field must be a string.'], plan: ['The plan field must be a string.'] });
    const missing = await api('POST', '/api/subscribe', { user: user(), body: { uuid: null } });
    expect(missing.body.errors).toEqual({ uuid: ['The uuid field is required.'], plan: ['The plan field is required.'] });
  });

  it('422 naming the field: bad uuid, unknown or free plan, and a payment the provider does not confirm', async () => {
    const u = user();
    const cases: [unknown, string][] = [
      [{ uuid: 'not-a-uuid', plan: 'basic-m' }, 'uuid'],
      [{ plan: 'basic-m' }, 'uuid'],
      [{ uuid: randomUUID(), plan: 'gold' }, 'plan'],
      [{ uuid: randomUUID(), plan: 'free' }, 'plan'],
      [{ uuid: randomUUID(), plan: 'basic-m' }, 'uuid'], // unknown at the provider
    ];
    const declined = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: declined, Status: 'Declined' });
    cases.push([{ uuid: declined, plan: 'basic-m' }, 'uuid']);
    const cheap = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 1, InvoiceId: cheap });
    cases.push([{ uuid: cheap, plan: 'basic-m' }, 'uuid']);
    const yearlyPaidMonthly = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: yearlyPaidMonthly });
    cases.push([{ uuid: yearlyPaidMonthly, plan: 'basic-y' }, 'uuid']);
    const someoneElses = randomUUID();
    stack.provider.addPayment({ AccountId: 'someone-else', Amount: 299, InvoiceId: someoneElses });
    cases.push([{ uuid: someoneElses, plan: 'basic-m' }, 'uuid']);
    for (const [body, field] of cases) {
      const res = await api('POST', '/api/subscribe', { user: u, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toEqual([field]);
    }
    expect(await counts(u)).toEqual({ payments: 0, subscriptions: 0, events: 0 });
  });

  it('answers 503 with a clear message when the provider is unreachable, and records nothing', async () => {
    const u = user();
    const uuid = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid });
    stack.provider.failNext(10);
    const res = await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } });
    stack.provider.failNext(0);
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/payment provider.*nothing was recorded/i);
    expect(await counts(u)).toEqual({ payments: 0, subscriptions: 0, events: 0 });
  });

  it('needs a signed-in user', async () => {
    expect((await api('POST', '/api/subscribe', { body: { uuid: randomUUID(), plan: 'basic-m' } })).status).toBe(401);
    expect((await api('GET', '/api/subscription')).status).toBe(401);
  });
});

describe('POST /api/provider/payment-success', () => {
  it('records a signed form notification (lower-case escaped Cyrillic) and starts a subscription chosen by amount', async () => {
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 2990, InvoiceId: randomUUID() });
    const fields = payNotificationFields(p);
    const body = cloudPaymentsForm(fields);
    expect(body).toContain('Name=%d0%90%d0%bd%d0%bd%d0%b0+%d0%a1%d0%bc%d0%b8%d1%80%d0%bd%d0%be%d0%b2%d0%b0');
    const res = await sendSignedNotification(webhook(), fields, CP_SECRET, { signWith: 'content-hmac' });
    expect(res).toEqual({ status: 200, body: '{"code":0}' });
    const current = await api('GET', '/api/subscription', { user: u });
    expect(current.body.data).toMatchObject({ status: 'active', plan: { code: 'basic-y' } });
    const [row] = await stack.db.query<{ uuid: string; invoice_id: string }>('select uuid, invoice_id from subscription_payments where user_id = $1', [u]);
    expect(row).toEqual({ uuid: String(p.TransactionId), invoice_id: p.InvoiceId });
  });

  it('a second charge under the client\'s InvoiceId (a new TransactionId) is recorded and extends, not dropped', async () => {
    const u = user();
    const uuid = randomUUID();
    const first = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid });
    expect((await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } })).status).toBe(200);
    // Its own notification changes nothing; another charge of the same checkout is money to record.
    expect(await pay(first)).toEqual({ status: 200, body: '{"code":0}' });
    expect(await counts(u)).toEqual({ payments: 1, subscriptions: 1, events: 2 });
    const before = (await api('GET', '/api/subscription', { user: u })).body.data.ends_at;
    // More than 10 minutes on (sooner, the same plan again is a repeat purchase, refunded: one-purchase.e2e.test.ts).
    const start = stack.clock.now;
    stack.clock.now = new Date(start.getTime() + 11 * 60_000);
    try {
      expect(await pay(stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid }))).toEqual({ status: 200, body: '{"code":0}' });
    } finally {
      stack.clock.now = start;
    }
    expect((await counts(u)).payments).toBe(2);
    expect((await api('GET', '/api/subscription', { user: u })).body.data.ends_at > before).toBe(true);
  });

  it('accepts X-Content-HMAC (over the decoded parameters) and JSON bodies', async () => {
    const u1 = user();
    expect((await pay(stack.provider.addPayment({ AccountId: u1, Amount: 299 }), {}, { signWith: 'x-content-hmac' })).status).toBe(200);
    const u2 = user();
    expect((await pay(stack.provider.addPayment({ AccountId: u2, Amount: 299 }), {}, { format: 'json', signWith: 'content-hmac' })).status).toBe(200);
    expect(await counts(u1)).toMatchObject({ payments: 1, subscriptions: 1 });
    expect(await counts(u2)).toMatchObject({ payments: 1, subscriptions: 1 });
  });

  it('reads a JSON notification\'s numbers as written: two transaction ids above 2^53 stay two payments', async () => {
    const u = user();
    const post = async (transactionId: string) => {
      const raw = Buffer.from(`{"TransactionId":${transactionId},"Amount":299.00,"Currency":"RUB","OperationType":"Payment","AccountId":"${u}","Status":"Completed","TestMode":1,"SubscriptionId":"sc_${u}"}`);
      const res = await fetch(webhook(), { method: 'POST', headers: { 'content-type': 'application/json', 'content-hmac': signCloudPayments(raw, CP_SECRET)['Content-HMAC'] }, body: raw });
      return { status: res.status, body: await res.text() };
    };
    // As doubles both are 9007199964992992. Recurring charges (a SubscriptionId): a second widget payment this soon
    // would be a repeat purchase to refund, and the local provider knows neither.
    for (const id of ['9007199964992993', '9007199964992992']) expect(await post(id)).toEqual({ status: 200, body: '{"code":0}' });
    const rows = await stack.db.query<{ transaction_id: string; amount: string }>('select transaction_id, amount::text from subscription_payments where user_id = $1 order by transaction_id', [u]);
    expect(rows).toEqual([
      { transaction_id: '9007199964992992', amount: '299.00' },
      { transaction_id: '9007199964992993', amount: '299.00' },
    ]);
  });

  it('a signed notification with U+0000 in a field is an unattributed payment for an operator, not a 500', async () => {
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    expect(await pay(p, { AccountId: `${u}\u0000`, InvoiceId: 'inv\u0000' })).toEqual({ status: 200, body: '{"code":0}' });
    const [row] = await stack.db.query<{ reason: string; account_id: string }>('select reason, account_id from unattributed_payments where transaction_id = $1', [String(p.TransactionId)]);
    expect(row).toEqual({ reason: 'a NUL character in InvoiceId, AccountId', account_id: `${u}\ufffd` });
    expect(await counts(u)).toEqual({ payments: 0, subscriptions: 0, events: 0 });
    // In a field's name too.
    const named = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    expect(await pay(named, { 'Extra\u0000': 'x' })).toEqual({ status: 200, body: '{"code":0}' });
    const [other] = await stack.db.query<{ reason: string }>('select reason from unattributed_payments where transaction_id = $1', [String(named.TransactionId)]);
    expect(other?.reason).toBe('a NUL character in Extra\ufffd');
  });

  it('names the malformed or missing field of a signed Pay notification (422), apart from a missing one', async () => {
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    for (const [extra, field, message] of [
      [{ Amount: '299.001' }, 'Amount', /at most 2 places/],
      [{ Amount: '' }, 'Amount', /required/],
      [{ Currency: '' }, 'Currency', /required/],
    ] as const) {
      const res = await pay(p, extra);
      expect(res.status, JSON.stringify(extra)).toBe(422);
      const body = JSON.parse(res.body) as { errors: Record<string, string[]> };
      expect(Object.keys(body.errors)).toEqual([field]);
      expect(body.errors[field]![0]).toMatch(message);
    }
    expect(await counts(u)).toEqual({ payments: 0, subscriptions: 0, events: 0 });
  });

  it('refuses a forged or missing signature with 401 before anything parses the body, and records nothing', async () => {
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    const raw = Buffer.from(cloudPaymentsForm(payNotificationFields(p)));
    const post = (body: Buffer | string, headers: Record<string, string>) =>
      fetch(webhook(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    const good = signCloudPayments(raw, CP_SECRET)['Content-HMAC'];
    expect((await post(raw, {})).status).toBe(401);
    expect((await post(raw, { 'content-hmac': signCloudPayments(raw, 'wrong-secret')['Content-HMAC'] })).status).toBe(401);
    expect((await post(Buffer.from(raw.toString().replace('Amount=299.00', 'Amount=2990.00')), { 'content-hmac': good })).status).toBe(401);
    // The body re-encoded with upper-case escapes (what URLSearchParams would send) must not verify either.
    expect((await post(new URLSearchParams(raw.toString()).toString(), { 'content-hmac': good })).status).toBe(401);
    // A body no parser could read is still a 401, not a 422: the signature is checked first.
    expect((await post('%zz&&==%', { 'content-hmac': good })).status).toBe(401);
    const json = await fetch(webhook(), { method: 'POST', headers: { 'content-type': 'application/json', 'content-hmac': good }, body: '{not json' });
    expect(json.status).toBe(401);
    expect(await counts(u)).toEqual({ payments: 0, subscriptions: 0, events: 0 });
  });

  it('refuses (401) a body whose escapes were moved under a signature of the decoded text: parsed fields are what the signature covers', async () => {
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    // The payer put parameter syntax in Data (the widget's data); the provider escapes it and signs both ways.
    const other = String(Number(p.TransactionId) + 5);
    const captured = cloudPaymentsForm(payNotificationFields(p, { Data: `{"note":"&TransactionId=${other}&Amount=999999999999.99&"}` }));
    const { 'X-Content-HMAC': decodedSignature } = signCloudPayments(Buffer.from(captured), CP_SECRET);
    const dataStart = captured.indexOf('&Data=');
    const dataEnd = captured.indexOf('&', dataStart + 1);
    const forged =
      captured
        .slice(0, dataStart)
        .replace(`TransactionId=${p.TransactionId}`, `TransactionId%3d${p.TransactionId}`)
        .replace('&Amount=299.00', '&Amount%3d299.00') +
      `&Data=${decodeURIComponent(captured.slice(dataStart + 6, dataEnd))}` +
      captured.slice(dataEnd);
    // The forgery keeps the decoded text, and so the X-Content-HMAC signature.
    expect(decodeURIComponent(forged.replace(/\+/g, ' '))).toBe(decodeURIComponent(captured.replace(/\+/g, ' ')));
    const post = (body: string, headers: Record<string, string>) =>
      fetch(webhook(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    expect((await post(forged, { 'x-content-hmac': decodedSignature })).status).toBe(401);
    expect(await stack.db.query('select transaction_id from subscription_payments where user_id = $1 or transaction_id = $2', [u, other])).toEqual([]);
    expect(await counts(u)).toEqual({ payments: 0, subscriptions: 0, events: 0 });
    // The captured notification, signed over its raw bytes as the provider sends it, is recorded as it says.
    expect((await post(captured, signCloudPayments(Buffer.from(captured), CP_SECRET))).status).toBe(200);
    const rows = await stack.db.query<{ transaction_id: string; amount: string }>('select transaction_id, amount::text from subscription_payments where user_id = $1', [u]);
    expect(rows).toEqual([{ transaction_id: String(p.TransactionId), amount: '299.00' }]);
  });

  it('50 concurrent deliveries of one TransactionId across two billing instances give one payment and one period', async () => {
    await stack.addInstance();
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => pay(p)));
    expect(answers.every((a) => a.status === 200 && a.body === '{"code":0}')).toBe(true);
    expect(await counts(u)).toEqual({ payments: 1, subscriptions: 1, events: 2 });
    const [sub] = await stack.db.query<{ starts_at: Date; ends_at: Date }>('select starts_at, ends_at from subscriptions where user_id = $1', [u]);
    expect(new Date(sub!.ends_at).getTime()).toBe(monthLater(new Date(sub!.starts_at)).getTime());
  });

  it('a client subscribe racing the webhook for the same payment gives one payment and one period', async () => {
    // Rounds enough to land the webhook's commit inside the client's look-ups now and then (a 409 once did, in CI).
    for (let round = 0; round < 25; round++) {
      const u = user();
      const uuid = randomUUID();
      const p = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid });
      const [client, hook] = await Promise.all([api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } }), pay(p)]);
      expect(hook.status).toBe(200);
      expect(client.status).toBe(200);
      expect(client.body.data).toMatchObject({ status: 'active' });
      expect(await counts(u)).toEqual({ payments: 1, subscriptions: 1, events: 2 });
      // And after both: the client's repeat and another delivery change nothing.
      expect((await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } })).status).toBe(200);
      expect((await pay(p)).status).toBe(200);
      expect(await counts(u)).toEqual({ payments: 1, subscriptions: 1, events: 2 });
    }
  });

  it('a recurring charge (SubscriptionId) for a user with an active subscription extends it and keeps external_id', async () => {
    const u = user();
    const first = stack.provider.addPayment({ AccountId: u, Amount: 299, SubscriptionId: 'sc_' + u });
    await pay(first);
    const [before] = await stack.db.query<{ ends_at: Date }>('select ends_at from subscriptions where user_id = $1', [u]);
    await pay(stack.provider.addPayment({ AccountId: u, Amount: 299, SubscriptionId: 'sc_' + u }));
    const rows = await stack.db.query<{ ends_at: Date; external_id: string }>('select ends_at, external_id from subscriptions where user_id = $1', [u]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.external_id).toBe('sc_' + u);
    expect(new Date(rows[0]!.ends_at).getTime()).toBe(monthLater(new Date(before!.ends_at)).getTime());
    expect(await counts(u)).toMatchObject({ payments: 2 });
  });

  it('a user with many charges (a stream longer than nine events) still decides on the whole stream, even in a burst', async () => {
    const u = user();
    const charges = Array.from({ length: 8 }, () => stack.provider.addPayment({ AccountId: u, Amount: 299, SubscriptionId: `sc_${u}` }));
    await pay(charges[0]!);
    const [first] = await stack.db.query<{ starts_at: Date }>('select starts_at from subscriptions where user_id = $1', [u]);
    const answers = await Promise.all(charges.slice(1).map((c) => pay(c)));
    expect(answers.map((a) => a.status)).toEqual(Array(7).fill(200));
    expect(await counts(u)).toEqual({ payments: 8, subscriptions: 1, events: 16 });
    const [sub] = await stack.db.query<{ ends_at: Date }>('select ends_at from subscriptions where user_id = $1', [u]);
    // Eight months from the start, on its day of the month (a payment made on the 29th to 31st keeps that day).
    expect(new Date(sub!.ends_at).getTime()).toBe(monthsLater(new Date(first!.starts_at), 8).getTime());
  });

  it('a payment it cannot attribute (no AccountId, no plan in its currency, no amount) is kept for an operator and answered {code:0}', async () => {
    const noAccount = stack.provider.addPayment({ AccountId: null, Amount: 299 });
    const dollars = stack.provider.addPayment({ AccountId: user(), Amount: 299, Currency: 'USD' });
    const nothing = stack.provider.addPayment({ AccountId: user(), Amount: 0 });
    for (const p of [noAccount, dollars, nothing]) expect(await pay(p)).toEqual({ status: 200, body: '{"code":0}' });
    expect(await pay(noAccount)).toEqual({ status: 200, body: '{"code":0}' });
    const rows = await stack.db.query<{ transaction_id: string; reason: string }>('select transaction_id, reason from unattributed_payments where transaction_id = any($1) order by transaction_id', [
      [String(noAccount.TransactionId), String(dollars.TransactionId), String(nothing.TransactionId)],
    ]);
    expect(rows.map((r) => r.reason)).toEqual(['no usable AccountId', 'no paid plan is priced in USD', 'the amount 0.00 is not positive']);
  });

  it('an amount that is no price buys its share of the period of the plan nearest it (spec: exact price, otherwise a heuristic)', async () => {
    const cases = [
      // [amount, plan, the share of a period]: Data naming a plan changes nothing; the amount decides.
      { amount: 150, plan: 'basic-m', share: 150 / 299, data: { plan: 'basic-y' } },
      { amount: 1500, plan: 'basic-y', share: 1500 / 2990 },
      { amount: 5000, plan: 'basic-y', share: 5000 / 2990 },
      { amount: 10, plan: 'basic-m', share: 10 / 299, data: { plan: 'basic-y' } },
    ];
    for (const c of cases) {
      const u = user();
      const p = stack.provider.addPayment({ AccountId: u, Amount: c.amount });
      expect(await pay(p, c.data ? { Data: JSON.stringify(c.data) } : {})).toEqual({ status: 200, body: '{"code":0}' });
      const { body } = await api('GET', '/api/subscription', { user: u });
      expect(body.data).toMatchObject({ status: 'active', plan: { code: c.plan } });
      const start = new Date(body.data.starts_at);
      const whole = (c.plan === 'basic-m' ? monthLater(start) : new Date(Date.UTC(start.getUTCFullYear() + 1, start.getUTCMonth(), start.getUTCDate(), start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds()))).getTime() - start.getTime();
      const paid = new Date(body.data.ends_at).getTime() - start.getTime();
      expect(Math.abs(paid - whole * c.share)).toBeLessThanOrEqual(1);
      expect(await counts(u)).toMatchObject({ payments: 1, subscriptions: 1 });
    }
  });

  it('a payment worth less than one day of its plan (0.01 RUB) is recorded and shown, but grants no paid access, also while a subscription runs', async () => {
    const u = user();
    const invoice = randomUUID();
    const token = stack.provider.addPayment({ AccountId: u, Amount: 0.01, InvoiceId: invoice });
    expect(await pay(token, { Data: JSON.stringify({ plan: 'basic-y' }) })).toEqual({ status: 200, body: '{"code":0}' });
    const shown = { uuid: String(token.TransactionId), transaction_id: String(token.TransactionId), amount: '0.01', currency: 'RUB', source: 'webhook', grants_access: false, subscription_id: null };
    const listed = await api('GET', '/api/payments', { user: u });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([{ ...shown, created_at: expect.any(String) }]);
    expect((await api('GET', '/api/subscription', { user: u })).body).toEqual({ data: null });
    expect(await rpc.request<Entitlements>(Subjects.billing.entitlementsGet, { userId: u })).toMatchObject({ paid: false, plan: { code: 'free' }, endsAt: null, limits: { chatMessagesPerDay: { support: 10 } } });
    expect(await counts(u)).toEqual({ payments: 1, subscriptions: 0, events: 1 });
    // The provider retries it; the client confirms its InvoiceId: nothing more, and no subscription to answer.
    expect(await pay(token)).toEqual({ status: 200, body: '{"code":0}' });
    const confirm = await api('POST', '/api/subscribe', { user: u, body: { uuid: invoice, plan: 'basic-m' } });
    expect(confirm.status).toBe(422);
    expect(confirm.body.errors.uuid[0]).toMatch(/0\.01 RUB is worth less than one day/);
    expect(await counts(u)).toEqual({ payments: 1, subscriptions: 0, events: 1 });
    // While a paid subscription runs, it extends nothing; both payments are listed, newest first.
    const price = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    expect(await pay(price)).toEqual({ status: 200, body: '{"code":0}' });
    const running = (await api('GET', '/api/subscription', { user: u })).body.data;
    const second = stack.provider.addPayment({ AccountId: u, Amount: 0.01 });
    expect(await pay(second)).toEqual({ status: 200, body: '{"code":0}' });
    expect((await api('GET', '/api/subscription', { user: u })).body.data).toEqual(running);
    expect(await counts(u)).toEqual({ payments: 3, subscriptions: 1, events: 4 });
    const all = (await api('GET', '/api/payments', { user: u })).body.data as { transaction_id: string; grants_access: boolean; subscription_id: string | null }[];
    expect(all.map((p) => [p.transaction_id, p.grants_access, p.subscription_id])).toEqual([
      [String(second.TransactionId), false, null],
      [String(price.TransactionId), true, running.id],
      [String(token.TransactionId), false, null],
    ]);
    expect((await api('GET', '/api/payments', { user: user() })).body).toEqual({ data: [] });
    expect((await api('GET', '/api/payments')).status).toBe(401);
  });

  it('answers non-2xx when our side fails, so the provider retries; nothing is half-recorded', async () => {
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    await stack.db.query('alter table subscription_payments rename to subscription_payments_away');
    try {
      const res = await pay(p);
      expect(res.status).toBeGreaterThanOrEqual(500);
    } finally {
      await stack.db.query('alter table subscription_payments_away rename to subscription_payments');
    }
    expect(await counts(u)).toEqual({ payments: 0, subscriptions: 0, events: 0 });
    expect((await pay(p)).status).toBe(200);
    expect(await counts(u)).toEqual({ payments: 1, subscriptions: 1, events: 2 });
  });
});

describe('recurrent notifications, sync and cleanup', () => {
  const recurrent = (fields: Record<string, string>) => sendSignedNotification(new URL('/api/provider/recurrent', stack.base).toString(), fields, CP_SECRET);

  it('Cancelled/Rejected/Expired move the subscription to cancelled; it stays usable until ends_at', async () => {
    const u = user();
    await pay(stack.provider.addPayment({ AccountId: u, Amount: 299, SubscriptionId: `sc_${u}` }));
    expect((await recurrent({ Id: `sc_${u}`, AccountId: u, Status: 'Rejected', Amount: '299.00', Currency: 'RUB' })).status).toBe(200);
    const res = await api('GET', '/api/subscription', { user: u });
    expect(res.body.data).toMatchObject({ status: 'cancelled', usable: true });
    expect((await recurrent({ Id: `sc_${u}`, AccountId: u, Status: 'Cancelled' })).status).toBe(200);
    expect((await counts(u)).events).toBe(3);
    expect((await recurrent({ Id: `sc_${u}`, Status: 'Cancelled' })).status).toBe(200);
    const forged = await fetch(new URL('/api/provider/recurrent', stack.base), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `Id=sc_${u}&Status=Active` });
    expect(forged.status).toBe(401);
  });

  it('a payment while a cancelled subscription still runs renews it: one subscription, active and usable now; a late charge after Cancelled is undone by the next Cancelled', async () => {
    // Renewed through /api/subscribe.
    const u = user();
    await pay(stack.provider.addPayment({ AccountId: u, Amount: 299, SubscriptionId: `sc_${u}` }));
    await recurrent({ Id: `sc_${u}`, AccountId: u, Status: 'Cancelled' });
    const before = (await api('GET', '/api/subscription', { user: u })).body.data;
    const uuid = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid });
    const renewed = await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } });
    expect(renewed.body.data).toMatchObject({ id: before.id, status: 'active', usable: true, external_id: null, ends_at: monthLater(new Date(before.ends_at)).toISOString() });
    expect(await counts(u)).toMatchObject({ payments: 2, subscriptions: 1 });
    // A renewal charge whose Pay came after the provider's Cancelled: active again, until the Cancelled is repeated.
    const v = user();
    await pay(stack.provider.addPayment({ AccountId: v, Amount: 299, SubscriptionId: `sc_${v}` }));
    const late = stack.provider.addPayment({ AccountId: v, Amount: 299, SubscriptionId: `sc_${v}` });
    await recurrent({ Id: `sc_${v}`, AccountId: v, Status: 'Cancelled' });
    await pay(late);
    expect((await api('GET', '/api/subscription', { user: v })).body.data).toMatchObject({ status: 'active', usable: true, external_id: `sc_${v}` });
    await recurrent({ Id: `sc_${v}`, AccountId: v, Status: 'Cancelled' });
    expect((await api('GET', '/api/subscription', { user: v })).body.data).toMatchObject({ status: 'cancelled', usable: true, external_id: `sc_${v}` });
    expect(await counts(v)).toMatchObject({ payments: 2, subscriptions: 1 });
  });

  it('a provider subscription the first Pay did not name (no SubscriptionId yet) is found by the account when it fits the run: sync and Recurrent link and apply it', async () => {
    const iso = (d: Date) => d.toISOString().slice(0, 19);
    const longAgo = iso(new Date(Date.now() - 400 * 86_400_000));
    // Sync: the provider's subscription of the first payment, cancelled before its first scheduled charge.
    const u = user();
    const a = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: a, SubscriptionId: null });
    const first = (await api('POST', '/api/subscribe', { user: u, body: { uuid: a, plan: 'basic-m' } })).body.data;
    expect(first.external_id).toBeNull();
    const firstCharge = iso(monthLater(new Date(first.starts_at)));
    // Not ours: an older subscription of the account, and one for a token amount (anyone may set our AccountId).
    stack.provider.subscriptions.push({ Id: `sc_old_${u}`, AccountId: u, Amount: 299, Currency: 'RUB', Status: 'Expired', Interval: 'Month', NextTransactionDateIso: null, StartDateIso: longAgo });
    stack.provider.subscriptions.push({ Id: `sc_cheap_${u}`, AccountId: u, Amount: 0.01, Currency: 'RUB', Status: 'Active', Interval: 'Month', NextTransactionDateIso: firstCharge, StartDateIso: firstCharge });
    stack.provider.subscriptions.push({ Id: `sc_${u}`, AccountId: u, Amount: 299, Currency: 'RUB', Status: 'Cancelled', Interval: 'Month', NextTransactionDateIso: null, StartDateIso: firstCharge });
    const synced = await api('POST', '/api/sync-subscription', { user: u });
    expect(synced.body.data).toMatchObject({ status: 'cancelled', external_id: `sc_${u}`, usable: true, ends_at: first.ends_at });
    // Recurrent: the notification's terms (StartDate in UTC with a space) tell its subscription from others.
    const v = user();
    const b = randomUUID();
    stack.provider.addPayment({ AccountId: v, Amount: 299, InvoiceId: b, SubscriptionId: null });
    const second = (await api('POST', '/api/subscribe', { user: v, body: { uuid: b, plan: 'basic-m' } })).body.data;
    const terms = { Amount: '299.00', Currency: 'RUB', Interval: 'Month', Period: '1', StartDate: iso(monthLater(new Date(second.starts_at))).replace('T', ' ') };
    expect((await recurrent({ Id: `sc_old_${v}`, AccountId: v, Status: 'Expired', ...terms, StartDate: longAgo.replace('T', ' ') })).status).toBe(200);
    expect((await recurrent({ Id: `sc_cheap_${v}`, AccountId: v, Status: 'Cancelled', ...terms, Amount: '0.01' })).status).toBe(200);
    expect((await api('GET', '/api/subscription', { user: v })).body.data).toMatchObject({ status: 'active', external_id: null });
    expect((await recurrent({ Id: `sc_${v}`, AccountId: v, Status: 'Cancelled', ...terms })).status).toBe(200);
    expect((await api('GET', '/api/subscription', { user: v })).body.data).toMatchObject({ status: 'cancelled', external_id: `sc_${v}`, usable: true });
  });

  it('sync reconciles the status with the provider, never the paid time; with the provider down it changes nothing and answers 503', async () => {
    const u = user();
    await pay(stack.provider.addPayment({ AccountId: u, Amount: 299, SubscriptionId: `sc_${u}` }));
    const paidUntil = (await api('GET', '/api/subscription', { user: u })).body.data.ends_at;
    // A next charge ten years on is no payment.
    const next = new Date(Date.now() + 3650 * 86_400_000);
    stack.provider.subscriptions.push({ Id: `sc_${u}`, AccountId: u, Amount: 299, Currency: 'RUB', Status: 'Active', Interval: 'Month', NextTransactionDateIso: next.toISOString().slice(0, 19) });
    const synced = await api('POST', '/api/sync-subscription', { user: u });
    expect(synced.status).toBe(200);
    expect(synced.body.data).toMatchObject({ status: 'active', ends_at: paidUntil });
    stack.provider.subscriptions.at(-1)!.Status = 'Cancelled';
    stack.provider.failNext(10);
    const down = await api('POST', '/api/sync-subscription', { user: u });
    stack.provider.failNext(0);
    expect(down.status).toBe(503);
    expect(down.body.message).toMatch(/payment provider.*nothing was changed/i);
    expect((await api('GET', '/api/subscription', { user: u })).body.data.status).toBe('active');
    expect((await api('POST', '/api/sync-subscription', { user: u })).body.data.status).toBe('cancelled');
    // A user the provider knows nothing about: nothing changes.
    const stranger = user();
    const strangers = await api('POST', '/api/sync-subscription', { user: stranger });
    expect(strangers.status).toBe(200);
    expect(strangers.body).toEqual({ data: null });
  });

  it('clear:outdated-subscriptions removes subscriptions that ended more than two days ago (event, then read model), keeping payments', async () => {
    const u = user();
    await pay(stack.provider.addPayment({ AccountId: u, Amount: 299 }));
    const [sub] = await stack.db.query<{ ends_at: Date }>('select ends_at from subscriptions where user_id = $1', [u]);
    const logger = createLogger('test', 'silent');
    const deps = { db: stack.db, billing: stack.billing.billing, logger, marketTz: 'Europe/Moscow', clock: () => new Date(new Date(sub!.ends_at).getTime() + 47 * 3_600_000) };
    await runJob(stack.db, clearOutdatedSubscriptionsJob(deps), [], logger);
    expect(await counts(u)).toMatchObject({ subscriptions: 1 });
    const later = { ...deps, clock: () => new Date(new Date(sub!.ends_at).getTime() + 49 * 3_600_000) };
    const outcome = await runJob(stack.db, clearOutdatedSubscriptionsJob(later), [], logger);
    expect(outcome.status).toBe('done');
    expect(await counts(u)).toEqual({ payments: 1, subscriptions: 0, events: 3 });
    expect((await api('GET', '/api/subscription', { user: u })).body).toEqual({ data: null });
  });
});

describe('entitlements and read models', () => {
  it('billing.entitlements.get: free without a usable subscription, paid limits with one', async () => {
    const u = user();
    const free = await rpc.request<Entitlements>(Subjects.billing.entitlementsGet, { userId: u });
    expect(free).toMatchObject({ paid: false, plan: { code: 'free', id: 3 }, limits: { activeNotifications: 3, notificationTargets: ['asset'] } });
    await pay(stack.provider.addPayment({ AccountId: u, Amount: 299 }));
    const paid = await rpc.request<Entitlements>(Subjects.billing.entitlementsGet, { userId: u });
    expect(paid).toMatchObject({ paid: true, plan: { code: 'basic-m', id: 1 }, limits: { activeNotifications: null, notificationTargets: ['asset', 'portfolio', 'watchlist'] } });
  });

  it('the read models rebuilt from the events equal the ones written beside them', async () => {
    const snapshot = async () => ({
      subscriptions: await stack.db.query('select * from subscriptions order by id'),
      payments: await stack.db.query('select * from subscription_payments order by id'),
      unattributed: await stack.db.query('select * from unattributed_payments order by transaction_id'),
    });
    const before = await snapshot();
    expect(before.payments.length).toBeGreaterThan(10);
    const n = await rebuildReadModels(stack.db);
    expect(n).toBeGreaterThan(before.payments.length);
    expect(await snapshot()).toEqual(before);
  });

  it('billing events reach BILLING_EVENTS through the relay', async () => {
    const u = user();
    await pay(stack.provider.addPayment({ AccountId: u, Amount: 299 }));
    const stream = streamNameOf(stack.bus, 'billing');
    await expect
      .poll(async () => {
        const info = await stack.bus.jsm.streams.info(stream);
        return info.state.messages;
      }, { timeout: 5000 })
      .toBeGreaterThan(0);
    const msg = await stack.bus.jsm.streams.getMessage(stream, { last_by_subj: busSubject(stack.bus.prefix, 'billing.events.SubscriptionStarted') });
    expect(msg?.json<{ type: string; data: { userId: string } }>()).toMatchObject({ type: 'SubscriptionStarted' });
  });
});
