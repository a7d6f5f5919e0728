/**
 * Fiscal receipts (54-FZ) through the gateway with the local CloudPayments: a plan's charge carries the receipt
 * object (`/api/plans` gives it to the widget; `subscriptions/create` sends it as `CustomerReceipt`), the provider's
 * signed Receipt notification stores the receipt's link once, and the payment history shows it. A charge with no
 * receipt past the deadline is logged as an error and makes `/ready` fail until its receipt comes.
 */
import { randomUUID } from 'node:crypto';
import { type FakePayment, payNotificationFields, receiptNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_SECRET, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
const billingLog: string[] = [];
const api: BillingStack['api'] = (...args) => stack.api(...args);
const user = () => `u-${randomUUID().slice(0, 8)}`;
const HOUR = 3_600_000;

beforeAll(async () => {
  stack = await startBillingStack('billrcpt', { billingLog: (line) => billingLog.push(line) });
});
afterAll(async () => {
  await stack?.close();
});

/** Pays a plan through the stand-in's widget path (`/demo/pay`): the Pay notification, then (unless told not to) the Receipt one. */
async function widgetPay(u: string, planCode: 'basic-m' | 'basic-y'): Promise<FakePayment> {
  const plan = (await api('GET', '/api/plans')).body.data.find((p: { code: string }) => p.code === planCode);
  const res = await fetch(`${stack.provider.url}/demo/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accountId: u, amount: Number(plan.price), invoiceId: randomUUID(), customerReceipt: plan.receipt, recurrent: { interval: 'Month', period: planCode === 'basic-y' ? 12 : 1 } }),
  });
  expect(res.status).toBe(200);
  const { transactionId } = (await res.json()) as { transactionId: number };
  return stack.provider.payments.find((p) => p.TransactionId === transactionId)!;
}

const history = async (u: string) => (await api('GET', '/api/subscription/payments', { user: u })).body.data as { id: string; receipt_url: string | null }[];

describe('receipts (54-FZ)', () => {
  it("each paid plan gives the receipt object its charge carries: the configured line, VAT and taxation system at the plan's price", async () => {
    const plans = (await api('GET', '/api/plans')).body.data;
    expect(plans.find((p: { code: string }) => p.code === 'basic-y').receipt).toEqual({
      Items: [{ label: 'Подписка Basic, 1 год', price: 2990, quantity: 1, amount: 2990, vat: null, method: 4, object: 4 }],
      taxationSystem: 1,
      email: '',
      phone: '',
    });
    expect(plans.find((p: { code: string }) => p.code === 'free').receipt).toBeNull();
  });

  it("a payment's Receipt notification puts its link in the history, once; the link opens the receipt", async () => {
    const u = user();
    const payment = await widgetPay(u, 'basic-m');
    const url = `${stack.provider.url}/receipts/${payment.TransactionId}`;
    expect(await history(u)).toEqual([expect.objectContaining({ id: String(payment.TransactionId), receipt_url: url })]);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Подписка Basic, 1 месяц');

    // A repeated notification (the provider retries) changes nothing; one with a bad signature is refused.
    expect(await stack.provider.issueReceipt(payment)).toEqual({ status: 200, body: '{"code":0}' });
    const events = await stack.db.query<{ n: string }>(`select count(*) as n from es_events where type = 'ReceiptIssued' and data->>'paymentId' = $1`, [String(payment.TransactionId)]);
    expect(events[0]!.n).toBe('1');
    const forged = await sendSignedNotification(new URL('/api/provider/receipt', stack.base).toString(), receiptNotificationFields(payment, 'https://evil.example/r'), 'not-the-secret');
    expect(forged.status).toBe(401);
    expect((await history(u))[0]!.receipt_url).toBe(url);
  });

  it('a receipt that overtakes its Pay notification is refused with a 503, so the provider sends it again', async () => {
    const u = user();
    const payment = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: randomUUID() });
    const early = await stack.provider.issueReceipt(payment);
    expect(early.status).toBe(503);
    const pay = await sendSignedNotification(new URL('/api/provider/payment-success', stack.base).toString(), payNotificationFields(payment), CP_SECRET);
    expect(pay.status).toBe(200);
    expect(await stack.provider.issueReceipt(payment)).toEqual({ status: 200, body: '{"code":0}' });
    expect((await history(u))[0]!.receipt_url).toBe(`${stack.provider.url}/receipts/${payment.TransactionId}`);
  });

  it('a resumed recurring charge carries the receipt object too (subscriptions/create CustomerReceipt)', async () => {
    const u = user();
    await widgetPay(u, 'basic-m');
    expect((await api('POST', '/api/subscription/cancel', { user: u })).status).toBe(200);
    const resumed = await api('POST', '/api/subscription/resume', { user: u });
    expect(resumed.status).toBe(200);
    const created = stack.provider.requests.filter((r) => r.path === '/subscriptions/create' && (r.body as { AccountId: string }).AccountId === u);
    expect(created).toHaveLength(1);
    expect((created[0]!.body as { CustomerReceipt: unknown }).CustomerReceipt).toMatchObject({ Items: [{ label: 'Подписка Basic, 1 месяц', price: 299, amount: 299 }], taxationSystem: 1 });
  });

  it('a charge with no receipt an hour after its payment is logged as an error and fails /ready until the receipt comes', async () => {
    const u = user();
    // Charges are watched from the release that brought receipts (the migration's time); the test clock started before it.
    stack.clock.now = new Date(Math.max(stack.clock.now.getTime(), Date.now()) + 1000);
    stack.provider.sendReceipts(false);
    let payment: FakePayment;
    try {
      payment = await widgetPay(u, 'basic-m');
    } finally {
      stack.provider.sendReceipts(true);
    }
    expect((await history(u))[0]).toMatchObject({ id: String(payment.TransactionId), receipt_url: null });
    // Within the hour nothing is wrong.
    stack.clock.now = new Date(stack.clock.now.getTime() + HOUR - 60_000);
    expect((await api('GET', '/ready')).status).toBe(200);

    stack.clock.now = new Date(stack.clock.now.getTime() + 2 * 60_000);
    const ready = await api('GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ failed: ['billing'], checks: { billing: 'failing' }, problems: { billing: [expect.stringMatching(/^\d+ charge\(s\) without a fiscal receipt 60 minutes after payment$/)] } });
    expect(ready.body.message).toMatch(/^Not ready: billing \(\d+ charge\(s\) without a fiscal receipt 60 minutes after payment\)\.$/);
    const errors = billingLog.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'error' && l.transactionId === String(payment.TransactionId));
    expect(errors).toEqual([expect.objectContaining({ userId: u, deadlineMinutes: 60, msg: expect.stringContaining('no fiscal receipt') })]);
    expect(JSON.stringify(errors)).not.toMatch(/Token|success_|secret/i);

    // Logged once, not at every check; the late receipt clears it.
    expect((await api('GET', '/ready')).status).toBe(503);
    expect(billingLog.filter((l) => l.includes(`"transactionId":"${payment.TransactionId}"`) && l.includes('"level":"error"'))).toHaveLength(1);
    expect(await stack.provider.issueReceipt(payment)).toEqual({ status: 200, body: '{"code":0}' });
    expect((await api('GET', '/ready')).status).toBe(200);
  });
});
