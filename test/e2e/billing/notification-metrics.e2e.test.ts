/**
 * Billing's metrics (issue 36) through the gateway with the local CloudPayments: every provider notification is
 * counted by type and outcome (`invest_billing_notifications_total`), and `/ready`'s receipt check sets
 * `invest_billing_receipts_missing`. The registry is the process's: values are compared before and after.
 */
import { randomUUID } from 'node:crypto';
import { payNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { metricValue } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_SECRET, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
const user = () => `u-${randomUUID().slice(0, 8)}`;
const NOTIFICATIONS = 'invest_billing_notifications_total';
const counted = (type: string, outcome: string) => metricValue(NOTIFICATIONS, { type, outcome });

beforeAll(async () => {
  stack = await startBillingStack('billmetrics');
});
afterAll(async () => {
  await stack?.close();
});

describe('billing metrics', () => {
  it('counts each notification by type and outcome: accepted, duplicate, invalid_signature, rejected, unavailable', async () => {
    const payment = stack.provider.addPayment({ AccountId: user(), Amount: 299, InvoiceId: randomUUID() });
    const payUrl = new URL('/api/provider/payment-success', stack.base).toString();
    const outcomes = [
      ['pay', 'accepted'],
      ['pay', 'duplicate'],
      ['pay', 'invalid_signature'],
      ['pay', 'rejected'],
      ['receipt', 'accepted'],
      ['receipt', 'duplicate'],
      ['receipt', 'unavailable'],
    ] as const;
    const before = await Promise.all(outcomes.map(([type, outcome]) => counted(type, outcome)));

    // A receipt ahead of its payment: a 503, so the provider sends it again.
    expect((await stack.provider.issueReceipt(payment)).status).toBe(503);
    expect((await sendSignedNotification(payUrl, payNotificationFields(payment), CP_SECRET)).status).toBe(200);
    expect((await sendSignedNotification(payUrl, payNotificationFields(payment), CP_SECRET)).status).toBe(200);
    expect((await sendSignedNotification(payUrl, payNotificationFields(payment), 'not-the-secret')).status).toBe(401);
    expect((await sendSignedNotification(payUrl, { ...payNotificationFields(payment), Amount: 'a lot' }, CP_SECRET)).status).toBe(422);
    expect(await stack.provider.issueReceipt(payment)).toEqual({ status: 200, body: '{"code":0}' });
    expect(await stack.provider.issueReceipt(payment)).toEqual({ status: 200, body: '{"code":0}' });

    const after = await Promise.all(outcomes.map(([type, outcome]) => counted(type, outcome)));
    expect(Object.fromEntries(outcomes.map(([type, outcome], i) => [`${type}/${outcome}`, after[i]! - before[i]!]))).toEqual({
      'pay/accepted': 1,
      'pay/duplicate': 1,
      'pay/invalid_signature': 1,
      'pay/rejected': 1,
      'receipt/accepted': 1,
      'receipt/duplicate': 1,
      'receipt/unavailable': 1,
    });
  });

  it('a charge with no receipt an hour after its payment sets invest_billing_receipts_missing while /ready fails', async () => {
    // Charges are watched from the release that brought receipts (the migration's time); the test clock started before it.
    stack.clock.now = new Date(Math.max(stack.clock.now.getTime(), Date.now()) + 1000);
    const payment = stack.provider.addPayment({ AccountId: user(), Amount: 299, InvoiceId: randomUUID() });
    const payUrl = new URL('/api/provider/payment-success', stack.base).toString();
    expect((await sendSignedNotification(payUrl, payNotificationFields(payment), CP_SECRET)).status).toBe(200);
    expect((await stack.api('GET', '/ready')).status).toBe(200);
    expect(await metricValue('invest_billing_receipts_missing')).toBe(0);

    stack.clock.now = new Date(stack.clock.now.getTime() + 61 * 60_000);
    expect((await stack.api('GET', '/ready')).status).toBe(503);
    expect(await metricValue('invest_billing_receipts_missing')).toBe(1);

    expect((await stack.provider.issueReceipt(payment)).status).toBe(200);
    expect((await stack.api('GET', '/ready')).status).toBe(200);
    expect(await metricValue('invest_billing_receipts_missing')).toBe(0);
  });
});
