/**
 * Change of plan through the gateway with the local CloudPayments. Monthly to yearly takes effect now: the saved
 * card is charged the yearly price less the credit of the month's unused time (`payments/tokens/charge`), the old
 * provider subscription cancelled and a yearly one created from a year on. Yearly to monthly takes effect at the
 * period's end: the old provider subscription cancelled, a monthly one created from `ends_at`, whose first charge
 * extends the subscription with the monthly plan. `subscriptions/update` is never called.
 */
import { randomUUID } from 'node:crypto';
import { type FakePayment, type FakeSubscription, payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type BillingStack, CP_SECRET, payWithRecurrent, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
let started: Date;
const api: BillingStack['api'] = (...args) => stack.api(...args);
const user = () => `u-${randomUUID().slice(0, 8)}`;
const payUrl = () => new URL('/api/provider/payment-success', stack.base).toString();
const DAY = 86_400_000;

beforeAll(async () => {
  stack = await startBillingStack('billplan');
  started = new Date(stack.clock.now);
});
afterEach(() => {
  stack.clock.now = started;
});
afterAll(async () => {
  await stack?.close();
});

/** A widget payment of a plan with its recurrent charge (not named in the Pay notification), as the provider makes them. */
async function subscribe(u: string, plan: 'basic-m' | 'basic-y'): Promise<{ payment: FakePayment; sub: FakeSubscription }> {
  const { payment, sub, notified } = await payWithRecurrent(stack, u, plan === 'basic-m' ? { amount: 299, months: 1 } : { amount: 2990, months: 12 });
  expect(notified).toEqual({ status: 200, body: '{"code":0}' });
  return { payment, sub };
}

const created = (u: string) => stack.provider.subscriptions.filter((s) => s.AccountId === u && s.Token);

describe('change of plan', () => {
  it('monthly to yearly takes effect now, the unused days credited to the kopeck; the provider subscription is replaced, never updated', async () => {
    const u = user();
    const { sub } = await subscribe(u, 'basic-m');
    const before = (await api('GET', '/api/subscription', { user: u })).body.data;
    const now = new Date(started.getTime() + 10 * DAY);
    stack.clock.now = now;

    const res = await api('POST', '/api/subscription/change-plan', { user: u, body: { plan: 'basic-y' } });
    expect(res.status).toBe(200);
    const yearLater = new Date(now);
    yearLater.setUTCFullYear(yearLater.getUTCFullYear() + 1);
    expect(res.body.data).toMatchObject({ id: before.id, plan: { code: 'basic-y' }, status: 'active', ends_at: yearLater.toISOString() });

    // Credit = floor(299.00 × unused / the month's length), in kopecks; charged = 2990.00 − credit.
    const ends = new Date(before.ends_at).getTime();
    const credit = (29_900n * BigInt(ends - now.getTime())) / BigInt(ends - new Date(before.starts_at).getTime());
    const charged = Number(299_000n - credit) / 100;
    const charges = stack.provider.payments.filter((p) => p.AccountId === u && p.InvoiceId?.startsWith('plan-change-'));
    expect(charges.map((p) => p.Amount)).toEqual([charged]);
    // 54-FZ: the charge's receipt totals what was charged; the new recurring charge carries the year's receipt.
    expect(charges[0]!.CustomerReceipt).toMatchObject({ Items: [{ price: charged, amount: charged, quantity: 1 }] });
    expect(created(u)[0]!.CustomerReceipt).toMatchObject({ Items: [{ amount: 2990 }] });
    expect(sub.Status).toBe('Cancelled');
    expect(created(u).map((s) => [s.Amount, s.Period, s.Status, s.StartDateIso])).toEqual([[2990, 12, 'Active', yearLater.toISOString().slice(0, 19)]]);
    expect(res.body.data.external_id).toBe(created(u)[0]!.Id);
    expect(stack.provider.requests.some((r) => r.path === '/subscriptions/update')).toBe(false);
    const history = (await api('GET', '/api/subscription/payments', { user: u })).body.data;
    expect(history[0]).toMatchObject({ id: String(charges[0]!.TransactionId), status: 'paid', plan: { code: 'basic-y' }, amount: charged.toFixed(2) });
    // The provider's Receipt notification of that charge follows it; the history links it.
    await vi.waitFor(
      async () => {
        const [row] = (await api('GET', '/api/subscription/payments', { user: u })).body.data;
        expect(row).toMatchObject({ id: String(charges[0]!.TransactionId), receipt_url: `${stack.provider.url}/receipts/${charges[0]!.TransactionId}` });
      },
      { timeout: 20_000, interval: 100 },
    );

    // Already yearly: a repeat charges nothing more.
    const again = await api('POST', '/api/subscription/change-plan', { user: u, body: { plan: 'basic-y' } });
    expect(again.status).toBe(409);
    expect(stack.provider.payments.filter((p) => p.AccountId === u && p.InvoiceId?.startsWith('plan-change-'))).toHaveLength(1);
  });

  it('yearly to monthly takes effect at the period\'s end: the monthly charge starts then and its first charge makes it monthly', async () => {
    const u = user();
    const { sub } = await subscribe(u, 'basic-y');
    const before = (await api('GET', '/api/subscription', { user: u })).body.data;

    const res = await api('POST', '/api/subscription/change-plan', { user: u, body: { plan: 'basic-m' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: before.id, plan: { code: 'basic-y' }, status: 'active', ends_at: before.ends_at });
    expect(sub.Status).toBe('Cancelled');
    const [monthly] = created(u);
    expect([monthly!.Amount, monthly!.Period, monthly!.Status, monthly!.StartDateIso]).toEqual([299, 1, 'Active', before.ends_at.slice(0, 19)]);
    expect(monthly!.CustomerReceipt).toMatchObject({ Items: [{ amount: 299 }] });
    expect(res.body.data.external_id).toBe(monthly!.Id);
    expect(stack.provider.payments.filter((p) => p.AccountId === u)).toHaveLength(1);
    expect(stack.provider.requests.some((r) => r.path === '/subscriptions/update')).toBe(false);

    // The provider's first monthly charge, on the last day of the year.
    stack.clock.now = new Date(new Date(before.ends_at).getTime() - 3_600_000);
    const charge = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: null, SubscriptionId: monthly!.Id });
    expect(await sendSignedNotification(payUrl(), payNotificationFields(charge), CP_SECRET)).toEqual({ status: 200, body: '{"code":0}' });
    const monthLater = new Date(before.ends_at);
    monthLater.setUTCMonth(monthLater.getUTCMonth() + 1);
    expect((await api('GET', '/api/subscription', { user: u })).body.data).toMatchObject({ id: before.id, plan: { code: 'basic-m' }, ends_at: monthLater.toISOString(), external_id: monthly!.Id });
  });

  it('refuses without an active paid subscription (409) and an unknown plan (422)', async () => {
    const u = user();
    expect((await api('POST', '/api/subscription/change-plan', { user: u, body: { plan: 'basic-y' } })).status).toBe(409);
    await subscribe(u, 'basic-m');
    expect((await api('POST', '/api/subscription/change-plan', { user: u, body: { plan: 'gold' } })).status).toBe(422);
    expect((await api('POST', '/api/subscription/change-plan', { user: u, body: { plan: 'basic-m' } })).status).toBe(409);
  });
});
