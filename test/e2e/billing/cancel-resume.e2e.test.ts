/**
 * Cancel and resume through the gateway with the local CloudPayments: the user cancels the recurring charge
 * (`subscriptions/cancel` at the provider, usable until `ends_at`), resumes it before the end (a new provider
 * subscription from `subscriptions/create` starting at `ends_at`, never `subscriptions/update` on the cancelled
 * one), and the payer's own cancellation on the provider's site (a Recurrent notification) shows the same state.
 */
import { randomUUID } from 'node:crypto';
import type { FakePayment, FakeSubscription } from '@invest/billing/testing/fake-cloudpayments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingStack, payWithRecurrent, startBillingStack } from '../support/billing-stack.js';

let stack: BillingStack;
const api: BillingStack['api'] = (...args) => stack.api(...args);
const user = () => `u-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  stack = await startBillingStack('billcancel');
});
afterAll(async () => {
  await stack?.close();
});

/**
 * A widget payment with a recurrent charge, as the provider makes it: the payment, the provider subscription
 * (first charge one month on, not named in the Pay notification) and the signed Pay notification.
 */
async function subscribeWithRecurrent(u: string): Promise<{ payment: FakePayment; sub: FakeSubscription }> {
  const { payment, sub, notified } = await payWithRecurrent(stack, u);
  expect(notified).toEqual({ status: 200, body: '{"code":0}' });
  return { payment, sub };
}

const calls = (path: string) => stack.provider.requests.filter((r) => r.path === path);

describe('cancel and resume', () => {
  it('cancel stops the provider charge and keeps access until ends_at; resume creates a new provider subscription from ends_at; repeats change nothing', async () => {
    const u = user();
    const { payment, sub } = await subscribeWithRecurrent(u);
    const before = (await api('GET', '/api/subscription', { user: u })).body.data;
    expect(before).toMatchObject({ status: 'active', usable: true, external_id: null });

    const cancelled = await api('POST', '/api/subscription/cancel', { user: u });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ id: before.id, status: 'cancelled', usable: true, ends_at: before.ends_at, external_id: sub.Id });
    expect(sub.Status).toBe('Cancelled');
    expect(calls('/subscriptions/cancel').filter((r) => (r.body as { Id: string }).Id === sub.Id)).toHaveLength(1);

    const cancelCalls = calls('/subscriptions/cancel').length;
    const again = await api('POST', '/api/subscription/cancel', { user: u });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ status: 'cancelled', ends_at: before.ends_at });
    expect(calls('/subscriptions/cancel').length).toBe(cancelCalls);

    const resumed = await api('POST', '/api/subscription/resume', { user: u });
    expect(resumed.status).toBe(200);
    expect(resumed.body.data).toMatchObject({ id: before.id, status: 'active', usable: true, ends_at: before.ends_at });
    const created = stack.provider.subscriptions.find((s) => s.Id === resumed.body.data.external_id)!;
    expect(created).toMatchObject({ AccountId: u, Amount: 299, Currency: 'RUB', Status: 'Active', Token: payment.Token, Period: 1 });
    expect(new Date(`${created.StartDateIso}Z`).getTime()).toBe(Math.floor(new Date(before.ends_at).getTime() / 1000) * 1000);
    expect(sub.Status).toBe('Cancelled');
    expect(calls('/subscriptions/update')).toEqual([]);

    const creates = calls('/subscriptions/create').length;
    const resumedAgain = await api('POST', '/api/subscription/resume', { user: u });
    expect(resumedAgain.body.data).toMatchObject({ status: 'active', external_id: created.Id });
    expect(calls('/subscriptions/create').length).toBe(creates);

    // The screen's sync reads the provider: the cancelled subscription is a former one, the new one active.
    const synced = await api('POST', '/api/sync-subscription', { user: u });
    expect(synced.body.data).toMatchObject({ status: 'active', external_id: created.Id });
  });

  it('the payer cancelling on the provider site shows the same state; a resume after the end is a 409', async () => {
    const u = user();
    const { sub } = await subscribeWithRecurrent(u);
    await api('POST', '/api/sync-subscription', { user: u }); // links the provider subscription by the account
    expect((await stack.provider.cancelByPayer(sub.Id, new URL('/api/provider/recurrent', stack.base).toString())).status).toBe(200);
    const after = (await api('GET', '/api/subscription', { user: u })).body.data;
    expect(after).toMatchObject({ status: 'cancelled', usable: true, external_id: sub.Id });

    const saved = stack.clock.now;
    stack.clock.now = new Date(new Date(after.ends_at).getTime() + 1000);
    try {
      const late = await api('POST', '/api/subscription/resume', { user: u });
      expect(late.status).toBe(409);
      expect(late.body.message).toMatch(/ended on .*cannot be resumed/);
    } finally {
      stack.clock.now = saved;
    }
  });

  it('not applicable: no subscription is a 422 naming it; a user only ever touches their own subscription', async () => {
    const owner = user();
    await subscribeWithRecurrent(owner);
    const stranger = user();
    const cancel = await api('POST', '/api/subscription/cancel', { user: stranger });
    expect(cancel.status).toBe(422);
    expect(cancel.body).toMatchObject({ message: 'You have no running paid subscription to cancel.', errors: { subscription: ['You have no running paid subscription to cancel.'] } });
    const resume = await api('POST', '/api/subscription/resume', { user: stranger });
    expect(resume.status).toBe(422);
    expect((await api('GET', '/api/subscription', { user: owner })).body.data).toMatchObject({ status: 'active' });
    expect((await api('POST', '/api/subscription/cancel')).status).toBe(401);
  });

  it('two resumes at once create one provider subscription (same X-Request-ID)', async () => {
    const u = user();
    await subscribeWithRecurrent(u);
    expect((await api('POST', '/api/subscription/cancel', { user: u })).status).toBe(200);
    const [a, b] = await Promise.all([api('POST', '/api/subscription/resume', { user: u }), api('POST', '/api/subscription/resume', { user: u })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.data.external_id).toBe(b.body.data.external_id);
    expect(stack.provider.subscriptions.filter((s) => s.AccountId === u && s.Status === 'Active')).toHaveLength(1);
  });

  it('a provider that cannot be reached changes nothing (503)', async () => {
    const u = user();
    await subscribeWithRecurrent(u);
    stack.provider.failNext(Infinity);
    try {
      const res = await api('POST', '/api/subscription/cancel', { user: u });
      expect(res.status).toBe(503);
      expect(res.body.message).toMatch(/nothing was changed/);
    } finally {
      stack.provider.failNext(0);
    }
    expect((await api('GET', '/api/subscription', { user: u })).body.data).toMatchObject({ status: 'active' });
  });
});
