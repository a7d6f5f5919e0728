/**
 * The payment history through the gateway (`GET /api/subscription/payments`): paged like the gateway's other
 * lists, each charge with its date, exact amount, plan, status, card and receipt link; a user sees only theirs.
 * Refunds and failed charges are covered with their notifications (refunds, failed-charges tests).
 */
import { randomUUID } from 'node:crypto';
import { rebuildReadModels } from '@invest/billing/testing/billing-test-kit';
import { payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_SECRET, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
const api: BillingStack['api'] = (...args) => stack.api(...args);
const user = () => `u-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  stack = await startBillingStack('billhist');
});
afterAll(async () => {
  await stack?.close();
});

describe('GET /api/subscription/payments', () => {
  it('lists the charges newest first, a page at a time, with plan, exact amount, status and card; others see none', async () => {
    const u = user();
    const first = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: randomUUID(), CardLastFour: '1881' });
    expect((await sendSignedNotification(new URL('/api/provider/payment-success', stack.base).toString(), payNotificationFields(first), CP_SECRET)).status).toBe(200);
    stack.clock.now = new Date(stack.clock.now.getTime() + 60_000);
    // A second charge while the month runs (a yearly payment) extends it, with another card.
    const uuid = randomUUID();
    const second = stack.provider.addPayment({ AccountId: u, Amount: 2990, InvoiceId: uuid, CardLastFour: '3055' });
    expect((await sendSignedNotification(new URL('/api/provider/payment-success', stack.base).toString(), payNotificationFields(second), CP_SECRET)).status).toBe(200);

    const page1 = await api('GET', '/api/subscription/payments?per_page=1', { user: u });
    expect(page1.status).toBe(200);
    expect(page1.body.meta).toMatchObject({ current_page: 1, per_page: 1, total: 2, last_page: 2, from: 1, to: 1 });
    expect(page1.body.links.next).toMatch(/\/api\/subscription\/payments\?.*page=2/);
    expect(page1.body.data).toEqual([
      { id: String(second.TransactionId), date: expect.any(String), amount: '2990.00', currency: 'RUB', plan: expect.objectContaining({ code: 'basic-y' }), status: 'paid', card_last_four: '3055', receipt_url: null },
    ]);
    const page2 = await api('GET', '/api/subscription/payments?per_page=1&page=2', { user: u });
    expect(page2.body.data).toEqual([
      { id: String(first.TransactionId), date: expect.any(String), amount: '299.00', currency: 'RUB', plan: expect.objectContaining({ code: 'basic-m' }), status: 'paid', card_last_four: '1881', receipt_url: null },
    ]);
    expect(new Date(page2.body.data[0].date) < new Date(page1.body.data[0].date)).toBe(true);

    const other = await api('GET', '/api/subscription/payments', { user: user() });
    expect(other.body).toMatchObject({ data: [], meta: { total: 0 } });

    // A read model like the others: rebuilt from the events, it is the same.
    await rebuildReadModels(stack.db);
    expect((await api('GET', '/api/subscription/payments?per_page=1&page=2', { user: u })).body.data).toEqual(page2.body.data);
  });

  it('refuses a bad page and an anonymous caller', async () => {
    const bad = await api('GET', '/api/subscription/payments?page=0', { user: user() });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('page');
    expect((await api('GET', '/api/subscription/payments')).status).toBe(401);
  });
});
