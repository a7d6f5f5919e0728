/**
 * The stand-in's widget declines a card, so the failed-charge flow can be tried by hand (`npm start`): a declining
 * test card (reference §5) or the widget's "decline" box answers as the provider's fail callback, sends the signed
 * Fail notification and no Pay; the payment list shows the charge failed, with no receipt and no subscription.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
const user = () => `u-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  stack = await startBillingStack('billdecl');
});
afterAll(async () => {
  await stack?.close();
});

const widgetPay = (body: Record<string, unknown>) =>
  fetch(`${stack.provider.url}/demo/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: 299, invoiceId: randomUUID(), ...body }) });

describe('the widget declines a card', () => {
  for (const [how, body] of [
    ['a declining test card', { cardNumber: '4012 8888 8888 1881' }],
    ['the decline box', { cardNumber: '4242 4242 4242 4242', decline: true }],
  ] as const) {
    it(`${how}: the fail callback's reason and code, a Fail notification, the charge listed failed`, async () => {
      const u = user();
      const res = await widgetPay({ accountId: u, ...body });
      expect(res.status).toBe(402);
      const answer = (await res.json()) as { reason: string; reasonCode: number; transactionId: number; notified: { status: number } };
      expect(answer).toMatchObject({ reason: 'InsufficientFunds', reasonCode: 5051, notified: { status: 200 } });
      expect(stack.provider.payments.find((p) => p.TransactionId === answer.transactionId)).toMatchObject({ Status: 'Declined', AccountId: u });
      const history = await stack.api('GET', '/api/subscription/payments', { user: u });
      expect(history.body.data).toEqual([expect.objectContaining({ id: String(answer.transactionId), status: 'failed', receipt_url: null })]);
      expect((await stack.api('GET', '/api/subscription', { user: u })).body.data).toBeNull();
    });
  }

  it('the widget page has the card field and the decline box, and passes them on', async () => {
    const script = await (await fetch(stack.provider.widgetUrl)).text();
    expect(script).toContain('cp-widget-card');
    expect(script).toContain('cp-widget-decline');
    expect(script).toContain('decline: decline.checked');
  });
});
