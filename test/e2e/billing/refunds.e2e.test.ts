/**
 * Refunds through the gateway with the local CloudPayments: a refund made at the provider (`payments/refund`)
 * sends the signed Refund notification, billing records it once per refund TransactionId, takes back the paid
 * time the refunded share bought, and the payment history shows the payment refunded.
 */
import { randomUUID } from 'node:crypto';
import { type FakePayment, payNotificationFields, refundNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_PUBLIC_ID, CP_SECRET, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
const api: BillingStack['api'] = (...args) => stack.api(...args);
const user = () => `u-${randomUUID().slice(0, 8)}`;
const refundUrl = () => new URL('/api/provider/refund', stack.base).toString();

beforeAll(async () => {
  stack = await startBillingStack('billrefund');
});
afterAll(async () => {
  await stack?.close();
});

async function paid(u: string, amount = 299): Promise<FakePayment> {
  const p = stack.provider.addPayment({ AccountId: u, Amount: amount, InvoiceId: randomUUID() });
  expect((await sendSignedNotification(new URL('/api/provider/payment-success', stack.base).toString(), payNotificationFields(p), CP_SECRET)).status).toBe(200);
  return p;
}

/** A refund made at the provider, as an operator would through its API; the provider then notifies the gateway. */
async function refundAtProvider(p: FakePayment, amount: number) {
  const res = await fetch(new URL('/payments/refund', stack.provider.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${CP_PUBLIC_ID}:${CP_SECRET}`).toString('base64')}` },
    body: JSON.stringify({ TransactionId: p.TransactionId, Amount: amount }),
  });
  const body = (await res.json()) as { Success: boolean; Model: { TransactionId: number } };
  expect(body.Success).toBe(true);
  return stack.provider.refunds.find((r) => r.TransactionId === body.Model.TransactionId)!;
}

const events = async (u: string) =>
  Number((await stack.db.query<{ n: string }>('select count(*)::text as n from es_events where stream_name = $1', [`billing-user-${u}`]))[0]!.n);

describe('Refund notification', () => {
  it('takes back the paid time and shows the payment refunded; a repeat of the notification changes nothing', async () => {
    const u = user();
    const p = await paid(u);
    const before = (await api('GET', '/api/subscription', { user: u })).body.data;
    expect(before).toMatchObject({ usable: true });

    const r = await refundAtProvider(p, 299);
    const after = (await api('GET', '/api/subscription', { user: u })).body.data;
    expect(after).toMatchObject({ id: before.id, usable: false, ends_at: before.starts_at });
    const history = (await api('GET', '/api/subscription/payments', { user: u })).body.data;
    expect(history).toEqual([expect.objectContaining({ id: String(p.TransactionId), status: 'refunded', amount: '299.00' })]);

    const n = await events(u);
    expect(await sendSignedNotification(refundUrl(), refundNotificationFields(p, r), CP_SECRET)).toEqual({ status: 200, body: '{"code":0}' });
    expect(await events(u)).toBe(n);
  });

  it('a partial refund of a recurring charge takes back its share of the period it added', async () => {
    const u = user();
    await paid(u);
    const first = (await api('GET', '/api/subscription', { user: u })).body.data;
    const charge = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: null, SubscriptionId: `sc_${u}` });
    await sendSignedNotification(new URL('/api/provider/payment-success', stack.base).toString(), payNotificationFields(charge), CP_SECRET);
    const extended = (await api('GET', '/api/subscription', { user: u })).body.data;
    await refundAtProvider(charge, 149.5);
    const after = (await api('GET', '/api/subscription', { user: u })).body.data;
    const added = new Date(extended.ends_at).getTime() - new Date(first.ends_at).getTime();
    expect(new Date(after.ends_at).getTime()).toBe(new Date(extended.ends_at).getTime() - Math.floor(added / 2));
    expect(after.usable).toBe(true);
  });

  it('refuses a bad signature (401); a refund of a payment nobody has is acknowledged and changes nothing', async () => {
    const u = user();
    const p = await paid(u);
    const fields = refundNotificationFields(p, { TransactionId: 7_000_000_001, PaymentTransactionId: p.TransactionId, Amount: 299 });
    expect((await sendSignedNotification(refundUrl(), fields, 'not-the-secret')).status).toBe(401);
    expect((await api('GET', '/api/subscription', { user: u })).body.data).toMatchObject({ usable: true });
    const n = await events(u);
    expect((await sendSignedNotification(refundUrl(), { ...fields, PaymentTransactionId: 7_000_000_002 }, CP_SECRET)).status).toBe(200);
    expect(await events(u)).toBe(n);
  });
});
