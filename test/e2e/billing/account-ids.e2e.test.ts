/**
 * User ids the gateway accepts (docs/decisions/0014-token-rules.md: any Unicode except controls, lone surrogates,
 * U+FFFD and outer white space: ids from identity providers, e-mails) buy a subscription through the Pay
 * webhook like any other user. Billing's AccountId check once admitted visible ASCII only: the webhook
 * recorded such a user's payment as unattributed, and then /api/subscribe refused the same payment with 409.
 */
import { randomUUID } from 'node:crypto';
import { payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_SECRET, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;

const api: BillingStack['api'] = (...args) => stack.api(...args);
const webhook = () => new URL('/api/provider/payment-success', stack.base).toString();

beforeAll(async () => {
  stack = await startBillingStack('billacct');
});
afterAll(async () => {
  await stack?.close();
});

const ids = () => [`анна-${randomUUID().slice(0, 6)}`, `john smith ${randomUUID().slice(0, 6)}`, `ünïcode.${randomUUID().slice(0, 6)}@пример.рф`];

describe('AccountIds: every user id the gateway accepts', () => {
  it('the gateway accepts these ids as users (baseline)', async () => {
    for (const u of ids()) expect((await api('GET', '/api/subscription', { user: u })).status, u).toBe(200);
  });

  it('webhook first (the usual order), then /api/subscribe: the paying user ends up with an active subscription', async () => {
    for (const u of ids()) {
      const uuid = randomUUID();
      const p = stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid });
      expect(await sendSignedNotification(webhook(), payNotificationFields(p), CP_SECRET)).toEqual({ status: 200, body: '{"code":0}' });
      const sub = await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } });
      // Before the fix: 409 {"message":"This payment was already recorded and cannot be applied again."}
      expect(sub.status, `${u}: ${JSON.stringify(sub.body)}`).toBe(200);
      const current = await api('GET', '/api/subscription', { user: u });
      expect(current.body.data, u).toMatchObject({ status: 'active', usable: true, plan: { code: 'basic-m' } });
    }
  });

  it('the webhook alone (no client call) starts the subscription for such a user', async () => {
    for (const u of ids()) {
      const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
      expect((await sendSignedNotification(webhook(), payNotificationFields(p), CP_SECRET)).status).toBe(200);
      const [row] = await stack.db.query<{ reason: string }>('select reason from unattributed_payments where transaction_id = $1', [String(p.TransactionId)]);
      // Before the fix: { reason: 'no usable AccountId' }
      expect(row, u).toBeUndefined();
      expect((await api('GET', '/api/subscription', { user: u })).body.data, u).toMatchObject({ status: 'active' });
    }
  });

  it('a recurring charge (Pay with SubscriptionId) extends the subscription of such a user started by /api/subscribe', async () => {
    const u = `мария-${randomUUID().slice(0, 6)}`;
    const uuid = randomUUID();
    stack.provider.addPayment({ AccountId: u, Amount: 299, InvoiceId: uuid, SubscriptionId: `sc_${uuid}` });
    const first = await api('POST', '/api/subscribe', { user: u, body: { uuid, plan: 'basic-m' } });
    expect(first.status).toBe(200);
    const renewal = stack.provider.addPayment({ AccountId: u, Amount: 299, SubscriptionId: `sc_${uuid}` });
    expect((await sendSignedNotification(webhook(), payNotificationFields(renewal), CP_SECRET)).status).toBe(200);
    const after = await api('GET', '/api/subscription', { user: u });
    // Before the fix: ends_at unchanged, the renewal sits in unattributed_payments ('no usable AccountId').
    expect(new Date(after.body.data.ends_at).getTime()).toBeGreaterThan(new Date(first.body.data.ends_at).getTime());
  });
});
