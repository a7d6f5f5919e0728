/**
 * One purchase at a time, through the gateway with the local CloudPayments: the checkout asks billing before the
 * widget opens (409 while a paid plan is usable), and a payment that still arrives for the same plan within
 * 10 minutes of the last one (a second tab opened before buying, an old invoice) is recorded, refunded through
 * `payments/refund` once, shown refunded, and extends nothing. Any other payment keeps today's rules.
 */
import { randomUUID } from 'node:crypto';
import { type FakePayment, payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_SECRET, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
const api: BillingStack['api'] = (...args) => stack.api(...args);
const user = () => `u-${randomUUID().slice(0, 8)}`;
const payUrl = () => new URL('/api/provider/payment-success', stack.base).toString();

beforeAll(async () => {
  stack = await startBillingStack('billonce');
});
afterAll(async () => {
  await stack?.close();
});

/** A widget payment of the plan's price and its signed Pay notification. */
async function paid(u: string, amount = 299): Promise<FakePayment> {
  const p = stack.provider.addPayment({ AccountId: u, Amount: amount, InvoiceId: randomUUID() });
  expect(await sendSignedNotification(payUrl(), payNotificationFields(p), CP_SECRET)).toEqual({ status: 200, body: '{"code":0}' });
  return p;
}

const refundsOf = (p: FakePayment) => stack.provider.refunds.filter((r) => r.PaymentTransactionId === p.TransactionId);
const events = async (u: string) => Number((await stack.db.query<{ n: string }>('select count(*)::text as n from es_events where stream_name = $1', [`billing-user-${u}`]))[0]!.n);

describe('checkout', () => {
  it('answers what the widget pays while no paid plan runs, and 409 once one does', async () => {
    const u = user();
    const invoice = randomUUID();
    const first = await api('POST', '/api/subscription/checkout', { user: u, body: { plan: 'basic-y', invoice_id: invoice } });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ invoice_id: invoice, plan: 'basic-y', amount: '2990.00', currency: 'RUB', account_id: u, recurrent: { interval: 'Month', period: 12 },
      // The receipt (54-FZ) the widget's charge carries: the configured line at the plan's price.
      receipt: { Items: [{ label: 'Подписка Basic, 1 год', price: 2990, quantity: 1, amount: 2990, vat: null, method: 4, object: 4 }], taxationSystem: 1, email: '', phone: '' },
    });
    const fresh = await api('POST', '/api/subscription/checkout', { user: u, body: { plan: 'basic-m' } });
    expect(fresh.body.data).toMatchObject({ plan: 'basic-m', amount: '299.00', recurrent: { period: 1 } });
    expect(fresh.body.data.invoice_id).toMatch(/^[0-9a-f-]{36}$/);

    await paid(u);
    const ends = (await api('GET', '/api/subscription', { user: u })).body.data.ends_at;
    const refused = await api('POST', '/api/subscription/checkout', { user: u, body: { plan: 'basic-m' } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`You already have an active subscription until ${ends}; to switch plans, change the plan instead of buying it again.`);
    // Another plan too: a change of plan has its own endpoint.
    expect((await api('POST', '/api/subscription/checkout', { user: u, body: { plan: 'basic-y' } })).status).toBe(409);
    expect((await api('POST', '/api/subscription/checkout', { user: u, body: { plan: 'free' } })).status).toBe(422);
  });
});

describe('a second-tab payment', () => {
  it('is recorded, refunded once through the provider, shown refunded, and extends nothing; a repeated notification refunds nothing more', async () => {
    const u = user();
    const first = await paid(u);
    const before = (await api('GET', '/api/subscription', { user: u })).body.data;

    const second = await paid(u);
    expect(refundsOf(second)).toEqual([expect.objectContaining({ Amount: 299 })]);
    expect(refundsOf(first)).toEqual([]);
    const after = (await api('GET', '/api/subscription', { user: u })).body.data;
    expect(after).toMatchObject({ id: before.id, ends_at: before.ends_at, status: 'active', usable: true });
    const history = (await api('GET', '/api/subscription/payments', { user: u })).body.data;
    expect(history).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: String(second.TransactionId), status: 'refunded', amount: '299.00' }),
        expect.objectContaining({ id: String(first.TransactionId), status: 'paid' }),
      ]),
    );
    expect(history).toHaveLength(2);

    const n = await events(u);
    expect(await sendSignedNotification(payUrl(), payNotificationFields(second), CP_SECRET)).toEqual({ status: 200, body: '{"code":0}' });
    expect(refundsOf(second)).toHaveLength(1);
    expect(await events(u)).toBe(n);
    expect((await api('GET', '/api/subscription', { user: u })).body.data.ends_at).toBe(before.ends_at);
  });

  it('a refund the provider could not make is asked again by the provider\'s retry of the notification, and made once', async () => {
    const u = user();
    await paid(u);
    const second = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: randomUUID() });
    stack.provider.failNext(10);
    const res = await sendSignedNotification(payUrl(), payNotificationFields(second), CP_SECRET);
    stack.provider.failNext(0);
    expect(res.status).toBe(503);
    expect(refundsOf(second)).toEqual([]);
    expect(await sendSignedNotification(payUrl(), payNotificationFields(second), CP_SECRET)).toEqual({ status: 200, body: '{"code":0}' });
    expect(await sendSignedNotification(payUrl(), payNotificationFields(second), CP_SECRET)).toEqual({ status: 200, body: '{"code":0}' });
    expect(refundsOf(second)).toHaveLength(1);
    const history = (await api('GET', '/api/subscription/payments', { user: u })).body.data;
    expect(history.find((h: { id: string }) => h.id === String(second.TransactionId))).toMatchObject({ status: 'refunded' });
  });

  it('keeps today\'s rules otherwise: more than 10 minutes later, or another plan, it extends the subscription', async () => {
    const u = user();
    const start = new Date(stack.clock.now);
    try {
      await paid(u);
      const before = (await api('GET', '/api/subscription', { user: u })).body.data;
      stack.clock.now = new Date(start.getTime() + 11 * 60_000);
      const later = await paid(u);
      expect(refundsOf(later)).toEqual([]);
      const extended = (await api('GET', '/api/subscription', { user: u })).body.data;
      expect(extended.ends_at > before.ends_at).toBe(true);
      const yearly = await paid(u, 2990);
      expect(refundsOf(yearly)).toEqual([]);
      expect((await api('GET', '/api/subscription', { user: u })).body.data).toMatchObject({ plan: { code: 'basic-y' } });
    } finally {
      stack.clock.now = start;
    }
  });
});
