/**
 * Provider notifications of any size get a clear answer, never a 500: up to PROVIDER_NOTIFICATION_MAX_BYTES
 * (512 KiB) a signed one is recorded (the payer sets fields such as Description in the browser; 150 KB had
 * been a 422 and the payment lost), above it a 413 (~900 KB had been a 500: its base64 passed NATS's message
 * limit); a header too long to be a signature is no signature (401, where it had been a 422 naming our schema).
 */
import { randomUUID } from 'node:crypto';
import { signCloudPayments } from '@invest/billing/testing/billing-test-kit';
import { cloudPaymentsForm, payNotificationFields } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, CP_SECRET, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
const webhook = () => new URL('/api/provider/payment-success', stack.base).toString();
const user = () => `u-${randomUUID().slice(0, 8)}`;
async function post(body: Buffer | string, headers: Record<string, string>) {
  const res = await fetch(webhook(), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  return { status: res.status, body: await res.text() };
}
const gatewayLog: string[] = [];
const paymentsOf = async (u: string) => Number((await stack.db.query<{ n: string }>('select count(*)::text n from subscription_payments where user_id = $1', [u]))[0]!.n);

beforeAll(async () => {
  stack = await startBillingStack('billsize', { gatewayLog: (line) => void gatewayLog.push(line) });
});
afterAll(async () => {
  await stack?.close();
});

describe('oversized provider notifications', () => {
  it('a signed Pay notification of ~900 KB (over 512 KiB, under the 1 MiB body limit) is a 413, not a 500', async () => {
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    const raw = Buffer.from(cloudPaymentsForm(payNotificationFields(p, { Description: 'x'.repeat(900_000) })));
    const res = await post(raw, { 'content-hmac': signCloudPayments(raw, CP_SECRET)['Content-HMAC'] });
    expect(res).toEqual({ status: 413, body: '{"message":"The request body is too large."}' });
    expect(await paymentsOf(u)).toBe(0);
  });

  it('an unsigned (forged) body of ~900 KB is a 413 too', async () => {
    const raw = 'TransactionId=1&Amount=299.00&Description=' + 'x'.repeat(900_000);
    const res = await post(raw, {});
    expect(res.status, res.body).toBe(413);
    // Said in the gateway's log, with the size and never the body.
    const warned = gatewayLog.map((l) => JSON.parse(l) as { level: string; msg: string; bytes?: number }).filter((l) => /PROVIDER_NOTIFICATION_MAX_BYTES/.test(l.msg));
    expect(warned.map((l) => [l.level, l.bytes])).toContainEqual(['warn', Buffer.byteLength(raw)]);
    expect(gatewayLog.join('\n')).not.toContain('x'.repeat(100));
  });

  it('a signed Pay notification of ~300 KB (payer-controlled InvoiceId/Description) is recorded, not refused with 422', async () => {
    const u = user();
    const p = stack.provider.addPayment({ AccountId: u, Amount: 299 });
    // Cyrillic text in a form field costs 6 bytes a character (%d1%8f): 50,000 characters are ~300 KB on the wire.
    const raw = Buffer.from(cloudPaymentsForm(payNotificationFields(p, { Description: 'я'.repeat(50_000) })));
    const res = await post(raw, { 'content-hmac': signCloudPayments(raw, CP_SECRET)['Content-HMAC'] });
    expect(res, 'signed, genuine payment').toEqual({ status: 200, body: '{"code":0}' });
    expect(await paymentsOf(u)).toBe(1);
  });

  it('a forged request with an over-long Content-HMAC header is answered 401 (signature), not a 422 about our schema', async () => {
    const res = await post('TransactionId=1&Amount=299.00', { 'content-hmac': 'A'.repeat(300) });
    expect(res.status, res.body).toBe(401);
  });

  it('a forged request with a long Content-Type is answered 401, not 422', async () => {
    const res = await post('TransactionId=1&Amount=299.00', { 'content-type': `application/x-www-form-urlencoded; boundary=${'b'.repeat(300)}`, 'content-hmac': 'abc' });
    expect(res.status, res.body).toBe(401);
  });
});
