/**
 * Declined recurring charges through the gateway with the local CloudPayments: each Fail notification (signed,
 * once per TransactionId) makes the subscription past due with the attempts left, access is kept for the grace
 * period (3 days from the first failure), a successful retry restores it from the paid end, and the third failure
 * (the provider's Rejected) ends access when the grace period ends.
 */
import { randomUUID } from 'node:crypto';
import { type Entitlements, Subjects } from '@invest/contracts';
import { failNotificationFields, type FakeSubscription, payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { RpcClient } from '@invest/platform';
import { testNatsUrl } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_SECRET, payWithRecurrent, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
let rpc: RpcClient;
const api: BillingStack['api'] = (...args) => stack.api(...args);
const user = () => `u-${randomUUID().slice(0, 8)}`;
const DAY = 86_400_000;

beforeAll(async () => {
  stack = await startBillingStack('billfail');
  rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'billing-fail-test', defaultTimeoutMs: 5000, busPrefix: stack.gw.config.busPrefix });
  await rpc.connect();
});
afterAll(async () => {
  await rpc?.close();
  await stack?.close();
});

/** A widget payment with a recurrent charge, its provider subscription linked by the screen's sync. */
async function subscribed(u: string): Promise<FakeSubscription> {
  const { sub, notified } = await payWithRecurrent(stack, u);
  expect(notified.status).toBe(200);
  expect((await api('POST', '/api/sync-subscription', { user: u })).body.data).toMatchObject({ external_id: sub.Id });
  return sub;
}

const current = async (u: string) => (await api('GET', '/api/subscription', { user: u })).body.data;
const entitlements = (u: string) => rpc.request<Entitlements>(Subjects.billing.entitlementsGet, { userId: u });

describe('Fail notifications', () => {
  const start = new Date();
  it('three declined charges: past due with the attempts left, access through the grace period, then none', async () => {
    stack.clock.now = new Date(start);
    const u = user();
    const sub = await subscribed(u);
    const paidEnd = (await current(u)).ends_at;

    // The charge at the end of the period is declined.
    stack.clock.now = new Date(new Date(paidEnd).getTime() + 5000);
    const first = await stack.provider.declineRecurringCharge(sub.Id);
    expect(first.fail).toEqual({ status: 200, body: '{"code":0}' });
    const graceUntil = new Date(stack.clock.now.getTime() + 3 * DAY).toISOString();
    expect(await current(u)).toMatchObject({ status: 'past_due', usable: true, ends_at: paidEnd, grace_until: graceUntil, failed_charges: 1, attempts_left: 2 });
    expect((await entitlements(u)).paid).toBe(true);
    const history = (await api('GET', '/api/subscription/payments', { user: u })).body.data;
    expect(history[0]).toMatchObject({ id: String(first.payment.TransactionId), status: 'failed', amount: '299.00', plan: expect.objectContaining({ code: 'basic-m' }), card_last_four: '4242' });

    // The provider retrying the notification changes nothing.
    const events = async () => Number((await stack.db.query<{ n: string }>('select count(*)::text as n from es_events where stream_name = $1', [`billing-user-${u}`]))[0]!.n);
    const n = await events();
    expect((await sendSignedNotification(new URL('/api/provider/fail', stack.base).toString(), failNotificationFields(first.payment), CP_SECRET)).status).toBe(200);
    expect(await events()).toBe(n);

    stack.clock.now = new Date(stack.clock.now.getTime() + DAY);
    await stack.provider.declineRecurringCharge(sub.Id);
    expect(await current(u)).toMatchObject({ status: 'past_due', usable: true, grace_until: graceUntil, attempts_left: 1 });

    // The third: the provider rejects the subscription; access stays until the grace period ends.
    stack.clock.now = new Date(stack.clock.now.getTime() + DAY);
    const third = await stack.provider.declineRecurringCharge(sub.Id);
    expect(third.rejected?.status).toBe(200);
    expect(await current(u)).toMatchObject({ status: 'cancelled', usable: true, grace_until: graceUntil, attempts_left: 0 });
    expect((await entitlements(u)).paid).toBe(true);

    stack.clock.now = new Date(new Date(graceUntil).getTime() + 1000);
    expect(await current(u)).toMatchObject({ status: 'cancelled', usable: false });
    expect((await entitlements(u)).paid).toBe(false);
  });

  it('a successful retry in the grace period makes it active again, the next period from the paid end', async () => {
    stack.clock.now = new Date(start);
    const u = user();
    const sub = await subscribed(u);
    const paidEnd = (await current(u)).ends_at;
    stack.clock.now = new Date(new Date(paidEnd).getTime() + 5000);
    await stack.provider.declineRecurringCharge(sub.Id);
    stack.clock.now = new Date(stack.clock.now.getTime() + DAY);
    const retry = stack.provider.addPayment({ AccountId: u, Amount: 299, SubscriptionId: sub.Id });
    expect((await sendSignedNotification(new URL('/api/provider/payment-success', stack.base).toString(), payNotificationFields(retry), CP_SECRET)).status).toBe(200);
    const next = new Date(paidEnd);
    next.setUTCMonth(next.getUTCMonth() + 1);
    expect(await current(u)).toMatchObject({ status: 'active', usable: true, ends_at: next.toISOString(), grace_until: null, failed_charges: 0, attempts_left: 3 });
  });

  it('a bad signature is refused (401); a declined widget payment is listed as failed and changes no subscription', async () => {
    stack.clock.now = new Date(start);
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: randomUUID(), Status: 'Declined' });
    const url = new URL('/api/provider/fail', stack.base).toString();
    expect((await sendSignedNotification(url, failNotificationFields(p), 'wrong-secret')).status).toBe(401);
    expect((await sendSignedNotification(url, failNotificationFields(p), CP_SECRET)).status).toBe(200);
    expect(await current(u)).toBeNull();
    expect((await api('GET', '/api/subscription/payments', { user: u })).body.data).toEqual([expect.objectContaining({ status: 'failed', plan: expect.objectContaining({ code: 'basic-m' }) })]);
  });
});
