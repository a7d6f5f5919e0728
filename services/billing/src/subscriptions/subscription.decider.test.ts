import type { BillingEvent } from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { deciderSpecification } from '@invest/platform/testing/index';
import { describe, expect, it } from 'vitest';
import { planCatalog } from '../plans/plan-catalog.js';
import { type BillingCommand, billingDecider, checkoutConflict, currentSubscription, isUsable, planChangeCreditMinor, repeatPurchaseToRefund } from './subscription.decider.js';

const plans = planCatalog();
const [monthly, yearly] = plans;
/** A provider subscription charging the monthly plan's price every month, from `startedAt`. */
const monthlyTerms = (startedAt: string) => ({ amount: '299.00', currency: 'RUB', interval: 'Month', period: 1, startedAt });
const spec = deciderSpecification(billingDecider);
const now = new Date('2026-03-10T12:00:00.000Z');
const at = now.toISOString();
const SUB1 = '00000000-0000-5000-8000-000000000001';
const SUB2 = '00000000-0000-5000-8000-000000000002';
const elevenMinutesAgo = new Date(now.getTime() - 11 * 60_000).toISOString();

const pay = (over: Partial<Extract<BillingCommand, { type: 'RecordPayment' }>> = {}): BillingCommand => ({
  type: 'RecordPayment',
  source: 'client',
  userId: '42',
  uuid: 'c0ffee00-0000-4000-8000-000000000001',
  payment: { transactionId: '1001', amount: '299.00', currency: 'RUB', invoiceId: 'c0ffee00-0000-4000-8000-000000000001', externalId: null },
  plan: monthly!,
  share: null,
  newSubscriptionId: SUB1,
  now,
  ...over,
});

const recorded = (over: Partial<Extract<BillingEvent, { type: 'PaymentRecorded' }>['data']> = {}): BillingEvent => ({
  type: 'PaymentRecorded',
  data: {
    version: 1,
    userId: '42',
    paymentId: '1001',
    uuid: 'c0ffee00-0000-4000-8000-000000000001',
    invoiceId: 'c0ffee00-0000-4000-8000-000000000001',
    amount: '299.00',
    currency: 'RUB',
    planCode: 'basic-m',
    source: 'client',
    subscriptionId: SUB1,
    grantsAccess: true,
    at,
    ...over,
  },
});
const started = (over: Partial<Extract<BillingEvent, { type: 'SubscriptionStarted' }>['data']> = {}): BillingEvent => ({
  type: 'SubscriptionStarted',
  data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', startsAt: at, endsAt: '2026-04-10T12:00:00.000Z', externalId: null, at, ...over },
});

describe('billing decider', () => {
  it('a first payment records it and starts a subscription for one period', () => {
    spec.given().when(pay()).then([recorded(), started()]);
  });

  it('a yearly plan runs one calendar year', () => {
    spec
      .given()
      .when(pay({ plan: yearly! }))
      .then([recorded({ planCode: 'basic-y' }), started({ planCode: 'basic-y', endsAt: '2027-03-10T12:00:00.000Z' })]);
  });

  it('a known payment id, client uuid or InvoiceId changes nothing', () => {
    const history = [recorded(), started()];
    spec.given(history).when(pay()).thenNothingHappened();
    // The webhook of the same payment: its TransactionId as uuid, the client's uuid as InvoiceId.
    spec
      .given(history)
      .when(pay({ source: 'webhook', uuid: '1001', payment: { transactionId: '1001', amount: '299.00', currency: 'RUB', invoiceId: 'c0ffee00-0000-4000-8000-000000000001', externalId: null } }))
      .thenNothingHappened();
    // The client confirming, after the webhook recorded it, the payment whose InvoiceId is its uuid.
    spec
      .given([recorded({ source: 'webhook', uuid: '1001', invoiceId: 'c0ffee00-0000-4000-8000-000000000001' }), started()])
      .when(pay())
      .thenNothingHappened();
  });

  it('a new TransactionId under a known InvoiceId is another charge: recorded, and it extends the subscription', () => {
    // More than REPEAT_PURCHASE_MINUTES after the first (sooner, it is a repeat purchase: refunded, below).
    spec
      .given([recorded({ at: elevenMinutesAgo }), started()])
      .when(pay({ source: 'webhook', uuid: '9999', payment: { transactionId: '9999', amount: '299.00', currency: 'RUB', invoiceId: 'c0ffee00-0000-4000-8000-000000000001', externalId: null }, newSubscriptionId: SUB2 }))
      .then([
        recorded({ paymentId: '9999', uuid: '9999', source: 'webhook' }),
        { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-05-10T12:00:00.000Z', externalId: null, at } },
      ]);
  });

  it('renewals keep the day the subscription started on after a shorter month (Jan 31 → Feb 28 → Mar 31)', () => {
    const jan31 = '2026-01-31T12:00:00.000Z';
    const charge = (transactionId: string) => pay({ source: 'webhook', uuid: transactionId, payment: { transactionId, amount: '299.00', currency: 'RUB', invoiceId: null, externalId: null }, newSubscriptionId: SUB2, now: new Date('2026-02-27T12:00:00.000Z') });
    const extended = (endsAt: string): BillingEvent => ({ type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt, externalId: null, at: '2026-02-27T12:00:00.000Z' } });
    spec
      .given([recorded({ at: jan31 }), started({ startsAt: jan31, endsAt: '2026-02-28T12:00:00.000Z', at: jan31 })])
      .when(charge('2002'))
      .then([recorded({ paymentId: '2002', uuid: '2002', invoiceId: null, source: 'webhook', at: '2026-02-27T12:00:00.000Z' }), extended('2026-03-31T12:00:00.000Z')]);
    // A part-period payment moved the end off the anchor: the next period follows that end.
    spec
      .given([recorded({ at: jan31 }), started({ startsAt: jan31, endsAt: '2026-02-14T12:00:00.000Z', at: jan31 })])
      .when(pay({ ...charge('2003'), now: new Date('2026-02-13T12:00:00.000Z') } as Partial<Extract<BillingCommand, { type: 'RecordPayment' }>>))
      .then([
        recorded({ paymentId: '2003', uuid: '2003', invoiceId: null, source: 'webhook', at: '2026-02-13T12:00:00.000Z' }),
        { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-03-14T12:00:00.000Z', externalId: null, at: '2026-02-13T12:00:00.000Z' } },
      ]);
  });

  it('a webhook TransactionId that equals an earlier payment\'s InvoiceId (set in the browser) is a new payment', () => {
    spec
      .given([recorded({ source: 'webhook', paymentId: '1001', uuid: '1001', invoiceId: '7777', at: elevenMinutesAgo }), started()])
      .when(pay({ source: 'webhook', uuid: '7777', payment: { transactionId: '7777', amount: '299.00', currency: 'RUB', invoiceId: null, externalId: null }, newSubscriptionId: SUB2 }))
      .then([
        recorded({ paymentId: '7777', uuid: '7777', invoiceId: null, source: 'webhook' }),
        { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-05-10T12:00:00.000Z', externalId: null, at } },
      ]);
  });

  it('a client payment while a subscription is active is a 409 conflict', () => {
    spec
      .given([recorded(), started()])
      .when(pay({ uuid: 'other', payment: { transactionId: '1002', amount: '299.00', currency: 'RUB', invoiceId: 'other', externalId: null }, newSubscriptionId: SUB2 }))
      .thenThrows(expect.objectContaining({ code: 'conflict' }) as never);
    expect(() =>
      billingDecider.decide(
        pay({ uuid: 'other', payment: { transactionId: '1002', amount: '299.00', currency: 'RUB', invoiceId: 'other', externalId: null } }),
        [recorded(), started()].reduce(billingDecider.evolve, billingDecider.initialState()),
      ),
    ).toThrow(ServiceError);
  });

  it('a webhook charge while active extends the running subscription from its end and keeps the SubscriptionId', () => {
    spec
      .given([recorded(), started()])
      .when(pay({ source: 'webhook', uuid: '1002', payment: { transactionId: '1002', amount: '299.00', currency: 'RUB', invoiceId: null, externalId: 'sc_1' }, newSubscriptionId: SUB2 }))
      .then([
        recorded({ paymentId: '1002', uuid: '1002', invoiceId: null, source: 'webhook', subscriptionId: SUB1 }),
        { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-05-10T12:00:00.000Z', externalId: 'sc_1', at } },
      ]);
  });

  it('a payment while a cancelled subscription still runs renews it (active again, from its end, the payment\'s provider subscription); after it ended, a new one now', () => {
    const cancelled: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'provider_cancelled', at } };
    const second = pay({ uuid: 'u2', payment: { transactionId: '1002', amount: '299.00', currency: 'RUB', invoiceId: 'u2', externalId: null }, newSubscriptionId: SUB2 });
    const renewed: BillingEvent = { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-05-10T12:00:00.000Z', externalId: null, at } };
    spec
      .given([recorded(), started({ externalId: 'sc_1' }), cancelled])
      .when(second)
      .then([recorded({ paymentId: '1002', uuid: 'u2', invoiceId: 'u2', subscriptionId: SUB1 }), renewed]);
    const state = [recorded(), started({ externalId: 'sc_1' }), cancelled, recorded({ paymentId: '1002', uuid: 'u2', invoiceId: 'u2' }), renewed].reduce(billingDecider.evolve, billingDecider.initialState());
    expect(currentSubscription(state)).toMatchObject({ id: SUB1, status: 'active', externalId: null, renewedAt: at });
    // The old provider subscription, cancelled again later, is not the renewed one's; the renewal's own is.
    spec
      .given([recorded(), started({ externalId: 'sc_1' }), cancelled, recorded({ paymentId: '1002', uuid: 'u2', invoiceId: 'u2' }), renewed])
      .when({ type: 'CancelByProvider', userId: '42', externalId: 'sc_1', terms: monthlyTerms('2026-04-10T12:00:00.000Z'), plans, reason: 'provider_cancelled', now })
      .thenNothingHappened();
    const later = new Date('2026-06-01T00:00:00.000Z');
    spec
      .given([recorded(), started()])
      .when({ ...second, now: later } as BillingCommand)
      .then([
        recorded({ paymentId: '1002', uuid: 'u2', invoiceId: 'u2', subscriptionId: SUB2, at: later.toISOString() }),
        started({ subscriptionId: SUB2, startsAt: later.toISOString(), endsAt: '2026-07-01T00:00:00.000Z', at: later.toISOString() }),
      ]);
  });

  it('the provider cancelling moves the subscription with that SubscriptionId to cancelled, once', () => {
    const history = [recorded(), started({ externalId: 'sc_9' })];
    const cancel: BillingCommand = { type: 'CancelByProvider', userId: '42', externalId: 'sc_9', terms: null, plans, reason: 'provider_rejected', now };
    const cancelled: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'provider_rejected', at } };
    spec.given(history).when(cancel).then([cancelled]);
    spec.given([...history, cancelled]).when(cancel).thenNothingHappened();
    spec.given(history).when({ ...cancel, externalId: 'sc_other' }).thenNothingHappened();
  });

  it('reconcile corrects the status only: paid time comes from payments, never from the provider\'s next charge date', () => {
    const history = [recorded(), started({ externalId: 'sc_9' })];
    spec
      .given(history)
      .when({ type: 'Reconcile', userId: '42', now, plans, provider: [{ id: 'sc_9', status: 'Cancelled', terms: null }] })
      .then([
        { type: 'SubscriptionReconciled', data: { version: 1, userId: '42', subscriptionId: SUB1, status: 'cancelled', endsAt: '2026-04-10T12:00:00.000Z', drift: ['status active -> cancelled'], at } },
      ]);
    spec.given(history).when({ type: 'Reconcile', userId: '42', now, plans, provider: [{ id: 'sc_9', status: 'Active', terms: monthlyTerms('2036-01-01T00:00:00.000Z') }] }).thenNothingHappened();
  });

  it('a provider subscription not named yet (the first Pay has no SubscriptionId) is the current one if it fits its run, and is linked', () => {
    const history = [recorded(), started()];
    // Our run began on March 10: the provider's first scheduled charge is a month later, for the plan's price.
    const cancel: BillingCommand = { type: 'CancelByProvider', userId: '42', externalId: 'sc_new', terms: monthlyTerms('2026-04-10T12:05:00.000Z'), plans, reason: 'provider_cancelled', now };
    const linked: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'provider_cancelled', externalId: 'sc_new', at } };
    spec.given(history).when(cancel).then([linked]);
    const state = [...history, linked].reduce(billingDecider.evolve, billingDecider.initialState());
    expect(currentSubscription(state)).toMatchObject({ status: 'cancelled', externalId: 'sc_new' });
    // Not ours: no terms, another start (an older one, or one made later by someone with our AccountId), another
    // amount (0.01 with a yearly interval), currency or interval; or ours is linked to another already.
    for (const terms of [
      null,
      monthlyTerms('2026-03-20T00:00:00.000Z'),
      monthlyTerms('2026-05-01T00:00:00.000Z'),
      { ...monthlyTerms('2026-04-10T12:00:00.000Z'), amount: '0.01' },
      { ...monthlyTerms('2026-04-10T12:00:00.000Z'), currency: 'USD' },
      { ...monthlyTerms('2026-04-10T12:00:00.000Z'), period: 12 },
    ]) {
      spec.given(history).when({ ...cancel, terms }).thenNothingHappened();
    }
    spec.given([recorded(), started({ externalId: 'sc_9' })]).when(cancel).thenNothingHappened();
  });

  it('reconcile links one provider subscription that fits the run; one linked before is never linked again', () => {
    const old = { id: 'sc_old', status: 'Cancelled' as const, terms: monthlyTerms('2026-02-10T12:00:00.000Z') };
    const fresh = { id: 'sc_new', status: 'Cancelled' as const, terms: monthlyTerms('2026-04-10T12:00:00.000Z') };
    const twin = { id: 'sc_twin', status: 'Active' as const, terms: monthlyTerms('2026-04-10T13:00:00.000Z') };
    spec
      .given([recorded(), started()])
      .when({ type: 'Reconcile', userId: '42', now, plans, provider: [old, fresh, twin] })
      .then([
        {
          type: 'SubscriptionReconciled',
          data: { version: 1, userId: '42', subscriptionId: SUB1, status: 'cancelled', endsAt: '2026-04-10T12:00:00.000Z', drift: ['external_id null -> sc_new', 'status active -> cancelled'], externalId: 'sc_new', at },
        },
      ]);
    // Renewed after sc_new was cancelled (its run begins again now, with no provider subscription yet): sc_new,
    // linked before, is not linked again even where its start would fit.
    const cancelled: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'provider_cancelled', externalId: 'sc_new', at } };
    const renewed: BillingEvent = { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-05-10T12:00:00.000Z', externalId: null, at } };
    spec
      .given([recorded(), started(), cancelled, recorded({ paymentId: '1002', uuid: 'u2', invoiceId: 'u2' }), renewed])
      .when({ type: 'CancelByProvider', userId: '42', externalId: 'sc_new', terms: monthlyTerms('2026-04-10T12:00:00.000Z'), plans, reason: 'provider_cancelled', now })
      .thenNothingHappened();
  });

  it('a payment of a share of the price buys that share of the period, from the end of a running one', () => {
    spec
      .given()
      .when(pay({ source: 'webhook', uuid: '1001', payment: { transactionId: '1001', amount: '149.50', currency: 'RUB', invoiceId: null, externalId: null }, share: { paidMinor: 14950, priceMinor: 29900 } }))
      .then([
        recorded({ uuid: '1001', invoiceId: null, source: 'webhook', amount: '149.50' }),
        // March 10 → April 10 is 31 days; half is 15.5 days.
        started({ endsAt: '2026-03-26T00:00:00.000Z' }),
      ]);
    spec
      .given([recorded(), started()])
      .when(pay({ source: 'webhook', uuid: '1002', payment: { transactionId: '1002', amount: '598.00', currency: 'RUB', invoiceId: null, externalId: null }, share: { paidMinor: 59800, priceMinor: 29900 }, newSubscriptionId: SUB2 }))
      .then([
        recorded({ paymentId: '1002', uuid: '1002', invoiceId: null, source: 'webhook', amount: '598.00' }),
        // Twice the period that starts on April 10 (30 days): June 9.
        { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-06-09T12:00:00.000Z', externalId: null, at } },
      ]);
  });

  describe('a payment worth less than one day of its plan (issue 30: 0.01 RUB had unlocked the paid limits)', () => {
    /** A Pay notification of `amount` RUB, nearest the monthly plan: its share of a month. */
    const webhookPay = (amount: string, transactionId = '1001', newSubscriptionId = SUB1) =>
      pay({
        source: 'webhook',
        uuid: transactionId,
        payment: { transactionId, amount, currency: 'RUB', invoiceId: 'c0ffee00-0000-4000-8000-000000000001', externalId: null },
        share: { paidMinor: Number(amount.replace('.', '')), priceMinor: 29900 },
        newSubscriptionId,
      });
    const tokenRecorded = (over: Partial<Extract<BillingEvent, { type: 'PaymentRecorded' }>['data']> = {}) =>
      recorded({ uuid: '1001', source: 'webhook', amount: '0.01', grantsAccess: false, ...over });

    it('is recorded, and starts nothing: no subscription, no paid access', () => {
      spec.given().when(webhookPay('0.01')).then([tokenRecorded()]);
      expect(currentSubscription([tokenRecorded()].reduce(billingDecider.evolve, billingDecider.initialState()))).toBeUndefined();
    });

    it('one day is the price over the days of the period it would buy, compared exactly: 9.64 of 299.00 for 31 days buys none, 9.65 a day', () => {
      // March 10 → April 10 is 31 days: one day is 299 / 31 = 9.6451… RUB.
      spec.given().when(webhookPay('9.64')).then([tokenRecorded({ amount: '9.64' })]);
      spec
        .given()
        .when(webhookPay('9.65'))
        .then([recorded({ uuid: '1001', source: 'webhook', amount: '9.65' }), started({ endsAt: '2026-03-11T12:00:43.344Z' })]);
    });

    it('while a subscription runs, active or cancelled, it is recorded only: it neither extends nor renews, a day measured from its end', () => {
      const history = [recorded(), started()];
      // From April 10 the period is 30 days: a day is 9.9666… RUB (9.96 would have bought a day from today's 31).
      spec
        .given(history)
        .when(webhookPay('9.96', '1002', SUB2))
        .then([tokenRecorded({ paymentId: '1002', uuid: '1002', amount: '9.96', subscriptionId: SUB2 })]);
      spec
        .given(history)
        .when(webhookPay('9.97', '1002', SUB2))
        .then([
          recorded({ paymentId: '1002', uuid: '1002', source: 'webhook', amount: '9.97' }),
          { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-04-11T12:00:28.896Z', externalId: null, at } },
        ]);
      const cancelled: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'provider_cancelled', at } };
      const token = tokenRecorded({ paymentId: '1002', uuid: '1002', subscriptionId: SUB2 });
      spec.given([...history, cancelled]).when(webhookPay('0.01', '1002', SUB2)).then([token]);
      const state = [...history, cancelled, token].reduce(billingDecider.evolve, billingDecider.initialState());
      expect(currentSubscription(state)).toMatchObject({ id: SUB1, status: 'cancelled', endsAt: '2026-04-10T12:00:00.000Z' });
    });

    it('a repeat of it (the provider retries, or the client confirms its InvoiceId) changes nothing; a later price payment starts a subscription', () => {
      spec.given([tokenRecorded()]).when(webhookPay('0.01')).thenNothingHappened();
      spec.given([tokenRecorded()]).when(pay({ payment: { transactionId: '1001', amount: '0.01', currency: 'RUB', invoiceId: 'c0ffee00-0000-4000-8000-000000000001', externalId: null } })).thenNothingHappened();
      spec
        .given([tokenRecorded()])
        .when(pay({ uuid: 'u2', payment: { transactionId: '1002', amount: '299.00', currency: 'RUB', invoiceId: 'u2', externalId: null }, newSubscriptionId: SUB2 }))
        .then([recorded({ paymentId: '1002', uuid: 'u2', invoiceId: 'u2', subscriptionId: SUB2 }), started({ subscriptionId: SUB2 })]);
    });
  });

  it('cleanup removes subscriptions that ended before the cut-off, and the next one becomes current', () => {
    const history = [recorded(), started({ endsAt: '2026-03-01T00:00:00.000Z' })];
    const removed: BillingEvent = { type: 'SubscriptionRemoved', data: { version: 1, userId: '42', subscriptionId: SUB1, endedAt: '2026-03-01T00:00:00.000Z', at } };
    spec.given(history).when({ type: 'RemoveOutdated', userId: '42', now, olderThan: new Date('2026-03-08T12:00:00.000Z') }).then([removed]);
    spec.given(history).when({ type: 'RemoveOutdated', userId: '42', now, olderThan: new Date('2026-02-27T00:00:00.000Z') }).thenNothingHappened();
    const state = [...history, removed].reduce(billingDecider.evolve, billingDecider.initialState());
    expect(currentSubscription(state)).toBeUndefined();
  });

  describe('cancel and resume by the user', () => {
    const history = [recorded(), started({ externalId: 'sc_1' })];
    const cancel: BillingCommand = { type: 'CancelByUser', userId: '42', now };
    const cancelled: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'user_cancelled', at } };
    const resume: BillingCommand = { type: 'Resume', userId: '42', externalId: 'sc_2', now };
    const resumed: BillingEvent = { type: 'SubscriptionResumed', data: { version: 1, userId: '42', subscriptionId: SUB1, externalId: 'sc_2', at } };

    it('a cancel of a running subscription cancels it; it stays usable until its end; a repeat changes nothing', () => {
      spec.given(history).when(cancel).then([cancelled]);
      spec.given([...history, cancelled]).when(cancel).thenNothingHappened();
      const state = [...history, cancelled].reduce(billingDecider.evolve, billingDecider.initialState());
      expect(currentSubscription(state)).toMatchObject({ status: 'cancelled', endsAt: '2026-04-10T12:00:00.000Z', externalId: 'sc_1' });
    });

    it('a cancel the provider already reported (the payer cancelled on its site) changes nothing', () => {
      const byProvider: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'provider_cancelled', at } };
      spec.given([...history, byProvider]).when(cancel).thenNothingHappened();
    });

    it('nothing to cancel: no subscription, an ended one, or a complimentary one with no end is a 422', () => {
      spec.given().when(cancel).thenThrows(expect.objectContaining({ code: 'validation_failed', errors: { subscription: ['You have no running paid subscription to cancel.'] } }) as never);
      spec.given(history).when({ ...cancel, now: new Date('2026-04-10T12:00:00.001Z') }).thenThrows(expect.objectContaining({ code: 'validation_failed' }) as never);
      spec
        .given([started({ planCode: 'free-forever', endsAt: null })])
        .when(cancel)
        .thenThrows(expect.objectContaining({ code: 'validation_failed', errors: { subscription: ['A complimentary plan has no recurring charge to cancel.'] } }) as never);
    });

    it('a resume before the end makes it active on the new provider subscription; the cancelled one is never linked again', () => {
      spec.given([...history, cancelled]).when(resume).then([resumed]);
      const state = [...history, cancelled, resumed].reduce(billingDecider.evolve, billingDecider.initialState());
      expect(currentSubscription(state)).toMatchObject({ status: 'active', endsAt: '2026-04-10T12:00:00.000Z', externalId: 'sc_2', formerExternalIds: ['sc_1'] });
      // A late Recurrent notification of the cancelled provider subscription changes nothing.
      spec
        .given([...history, cancelled, resumed])
        .when({ type: 'CancelByProvider', userId: '42', externalId: 'sc_1', terms: null, plans, reason: 'provider_cancelled', now })
        .thenNothingHappened();
    });

    it('a resume of an active subscription (a repeat) changes nothing; after the end it is a 409, with none a 422', () => {
      spec.given(history).when(resume).thenNothingHappened();
      spec.given([...history, cancelled, resumed]).when(resume).thenNothingHappened();
      spec
        .given([...history, cancelled])
        .when({ ...resume, now: new Date('2026-04-10T12:00:00.000Z') })
        .thenThrows(expect.objectContaining({ code: 'conflict' }) as never);
      spec.given().when(resume).thenThrows(expect.objectContaining({ code: 'validation_failed' }) as never);
    });
  });

  it("a payment records the card's last four digits the provider named (the payment history shows them)", () => {
    spec
      .given()
      .when(pay({ payment: { transactionId: '1001', amount: '299.00', currency: 'RUB', invoiceId: 'c0ffee00-0000-4000-8000-000000000001', externalId: null, cardLastFour: '1881' } }))
      .then([recorded({ cardLastFour: '1881' }), started()]);
  });

  describe('refunds', () => {
    const refund = (over: Partial<Extract<BillingCommand, { type: 'RecordRefund' }>> = {}): BillingCommand => ({ type: 'RecordRefund', userId: '42', paymentId: '1001', refundId: '5001', amount: '299.00', now, ...over });
    const refunded = (over: Partial<Extract<BillingEvent, { type: 'PaymentRefunded' }>['data']> = {}): BillingEvent => ({
      type: 'PaymentRefunded',
      data: { version: 1, userId: '42', paymentId: '1001', refundId: '5001', amount: '299.00', subscriptionId: SUB1, endsAt: at, at, ...over },
    });
    const history = [recorded(), started()];

    it('a full refund takes back the whole period it bought; a repeat of the refund TransactionId changes nothing', () => {
      spec.given(history).when(refund()).then([refunded()]);
      spec.given([...history, refunded()]).when(refund()).thenNothingHappened();
      const state = [...history, refunded()].reduce(billingDecider.evolve, billingDecider.initialState());
      expect(currentSubscription(state)).toMatchObject({ endsAt: at });
    });

    it('a partial refund takes back its share of the time; never more than was paid is refunded', () => {
      // Half of 299.00 of a 31-day month: 15.5 days back.
      spec.given(history).when(refund({ amount: '149.50' })).then([refunded({ amount: '149.50', endsAt: '2026-03-26T00:00:00.000Z' })]);
      const half = refunded({ amount: '149.50', endsAt: '2026-03-26T00:00:00.000Z' });
      spec.given([...history, half]).when(refund({ refundId: '5002', amount: '299.00' })).then([refunded({ refundId: '5002', amount: '149.50', endsAt: at })]);
    });

    it('a refund of a recurring charge takes back the period it added, not the one before', () => {
      const charge = recorded({ paymentId: '1002', uuid: '1002', source: 'webhook', invoiceId: null });
      const extended: BillingEvent = { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-05-10T12:00:00.000Z', externalId: 'sc_1', at } };
      spec.given([...history, charge, extended]).when(refund({ paymentId: '1002' })).then([refunded({ paymentId: '1002', endsAt: '2026-04-10T12:00:00.000Z' })]);
    });

    it('a refund of a payment that bought no time takes none; an unknown payment is a 422', () => {
      spec.given([recorded({ amount: '0.01', grantsAccess: false })]).when(refund({ amount: '0.01' })).then([refunded({ amount: '0.01', subscriptionId: null, endsAt: null })]);
      spec.given(history).when(refund({ paymentId: '9999' })).thenThrows(expect.objectContaining({ code: 'validation_failed' }) as never);
    });
  });

  describe('declined charges', () => {
    const charge = (over: Partial<Extract<BillingCommand, { type: 'RecordFailedCharge' }>> = {}): BillingCommand => ({
      type: 'RecordFailedCharge',
      userId: '42',
      paymentId: '7001',
      externalId: 'sc_1',
      amount: '299.00',
      currency: 'RUB',
      planCode: 'basic-m',
      reason: 'InsufficientFunds',
      cardLastFour: '1881',
      plans,
      now: new Date('2026-04-10T12:00:05.000Z'),
      ...over,
    });
    const failedAt = '2026-04-10T12:00:05.000Z';
    const grace = '2026-04-13T12:00:05.000Z';
    const failed = (over: Partial<Extract<BillingEvent, { type: 'ChargeFailed' }>['data']> = {}): BillingEvent => ({
      type: 'ChargeFailed',
      data: { version: 1, userId: '42', paymentId: '7001', amount: '299.00', currency: 'RUB', planCode: 'basic-m', subscriptionId: SUB1, reason: 'InsufficientFunds', cardLastFour: '1881', attempt: 1, attemptsLeft: 2, graceUntil: grace, at: failedAt, ...over },
    });
    const history = [recorded(), started({ externalId: 'sc_1' })];
    const fold = (events: BillingEvent[]) => events.reduce(billingDecider.evolve, billingDecider.initialState());

    it('the first failure makes the subscription past due, usable for the grace period from it; a repeat changes nothing', () => {
      spec.given(history).when(charge()).then([failed()]);
      spec.given([...history, failed()]).when(charge()).thenNothingHappened();
      const sub = currentSubscription(fold([...history, failed()]))!;
      expect(sub).toMatchObject({ status: 'past_due', graceUntil: grace, failedCharges: 1, endsAt: '2026-04-10T12:00:00.000Z' });
      expect(isUsable(sub, new Date('2026-04-13T12:00:00.000Z'))).toBe(true);
      expect(isUsable(sub, new Date('2026-04-13T12:00:05.000Z'))).toBe(false);
    });

    it('each later failure counts down the attempts left and keeps the grace period of the first', () => {
      const second = failed({ paymentId: '7002', attempt: 2, attemptsLeft: 1, at: '2026-04-11T12:00:05.000Z' });
      spec.given([...history, failed()]).when(charge({ paymentId: '7002', now: new Date('2026-04-11T12:00:05.000Z') })).then([second]);
      spec
        .given([...history, failed(), second])
        .when(charge({ paymentId: '7003', now: new Date('2026-04-12T12:00:05.000Z') }))
        .then([failed({ paymentId: '7003', attempt: 3, attemptsLeft: 0, at: '2026-04-12T12:00:05.000Z' })]);
    });

    it('a payment in the grace period (the provider retried) extends from the paid end and clears the failures', () => {
      const retry = pay({ source: 'webhook', uuid: '1002', payment: { transactionId: '1002', amount: '299.00', currency: 'RUB', invoiceId: null, externalId: 'sc_1' }, now: new Date('2026-04-11T12:00:00.000Z') });
      spec
        .given([...history, failed()])
        .when(retry)
        .then([
          recorded({ paymentId: '1002', uuid: '1002', source: 'webhook', invoiceId: null, at: '2026-04-11T12:00:00.000Z' }),
          { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2026-05-10T12:00:00.000Z', externalId: 'sc_1', at: '2026-04-11T12:00:00.000Z' } },
        ]);
    });

    it('past due, a resume changes nothing (its charge still runs) and a cancel cancels it', () => {
      spec.given([...history, failed()]).when({ type: 'Resume', userId: '42', externalId: 'sc_2', now: new Date(failedAt) }).thenNothingHappened();
      spec
        .given([...history, failed()])
        .when({ type: 'CancelByUser', userId: '42', now: new Date('2026-04-12T00:00:00.000Z') })
        .then([{ type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'user_cancelled', at: '2026-04-12T00:00:00.000Z' } }]);
    });

    it('Rejected after three failures cancels it; access ends with the grace period', () => {
      const rejected: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'provider_rejected', at: failedAt } };
      spec
        .given([...history, failed()])
        .when({ type: 'CancelByProvider', userId: '42', externalId: 'sc_1', terms: null, plans, reason: 'provider_rejected', now: new Date(failedAt) })
        .then([rejected]);
      const sub = currentSubscription(fold([...history, failed(), rejected]))!;
      expect(sub).toMatchObject({ status: 'cancelled', graceUntil: grace });
      expect(isUsable(sub, new Date('2026-04-13T12:00:06.000Z'))).toBe(false);
    });

    it('a declined first payment (no provider subscription) is only listed; a charge of an unlinked provider subscription counts for the current one at its price', () => {
      spec.given().when(charge({ externalId: null })).then([failed({ subscriptionId: null, attempt: 0, attemptsLeft: 0, graceUntil: null })]);
      spec.given([recorded(), started()]).when(charge()).then([failed()]);
      spec.given([recorded(), started()]).when(charge({ amount: '1.00' })).then([failed({ amount: '1.00', subscriptionId: null, attempt: 0, attemptsLeft: 0, graceUntil: null })]);
    });
  });
});

describe('billing decider: receipts (54-FZ)', () => {
  const URL1 = 'https://receipts.example/r/1001';
  const receipt = (over: Partial<Extract<BillingCommand, { type: 'RecordReceipt' }>> = {}): BillingCommand => ({
    type: 'RecordReceipt',
    userId: '42',
    transactionId: '1001',
    receiptType: 'Income',
    url: URL1,
    documentNumber: '7',
    now,
    ...over,
  });
  const issued = (over: Partial<Extract<BillingEvent, { type: 'ReceiptIssued' }>['data']> = {}): BillingEvent => ({
    type: 'ReceiptIssued',
    data: { version: 1, userId: '42', paymentId: '1001', transactionId: '1001', receiptType: 'Income', url: URL1, documentNumber: '7', at, ...over },
  });
  const refunded: BillingEvent = { type: 'PaymentRefunded', data: { version: 1, userId: '42', paymentId: '1001', refundId: '5001', amount: '299.00', subscriptionId: SUB1, endsAt: at, at } };

  it("a payment's receipt is recorded once; a repeated notification changes nothing", () => {
    spec.given([recorded(), started()]).when(receipt()).then([issued()]);
    spec.given([recorded(), started(), issued()]).when(receipt({ url: 'https://receipts.example/other' })).thenNothingHappened();
  });

  it("a refund's receipt (IncomeReturn) belongs to the refunded payment, besides the payment's own", () => {
    spec
      .given([recorded(), started(), issued(), refunded])
      .when(receipt({ transactionId: '5001', receiptType: 'IncomeReturn', url: 'https://receipts.example/r/5001' }))
      .then([issued({ transactionId: '5001', receiptType: 'IncomeReturn', url: 'https://receipts.example/r/5001' })]);
  });

  it('a receipt of a transaction not recorded for the user is refused, naming the TransactionId', () => {
    spec
      .given([recorded(), started()])
      .when(receipt({ transactionId: '9999' }))
      .thenThrows(expect.objectContaining({ code: 'validation_failed', errors: { TransactionId: ['No payment or refund with this TransactionId is recorded for the account.'] } }) as never);
  });

  it('a receipt changes no subscription: the current one stays current', () => {
    const state = [recorded(), started(), issued()].reduce(billingDecider.evolve, billingDecider.initialState());
    expect(currentSubscription(state)?.id).toBe(SUB1);
    expect(state.receipts).toEqual({ 'Income:1001': true });
  });

  describe('one purchase at a time', () => {
    const state = (events: BillingEvent[]) => events.reduce(billingDecider.evolve, billingDecider.initialState());
    const again = (over: Partial<Extract<BillingCommand, { type: 'RecordPayment' }>> = {}) =>
      pay({ source: 'webhook', uuid: '1002', payment: { transactionId: '1002', amount: '299.00', currency: 'RUB', invoiceId: 'tab-2', externalId: null }, newSubscriptionId: SUB2, ...over });
    const repeatData = { paymentId: '1002', uuid: '1002', invoiceId: 'tab-2', source: 'webhook', grantsAccess: false, repeatOf: '1001' } as const;
    const repeat = recorded(repeatData);

    it('the same plan paid again (another tab) within 10 minutes while active is recorded as a repeat to refund, and extends nothing', () => {
      spec.given([recorded(), started()]).when(again({ now: new Date(now.getTime() + 10 * 60_000) })).then([recorded({ ...repeatData, at: new Date(now.getTime() + 10 * 60_000).toISOString() })]);
      const after = state([recorded(), started(), repeat]);
      expect(repeatPurchaseToRefund(after, '1002')).toMatchObject({ amount: '299.00', repeatOf: '1001' });
      expect(currentSubscription(after)?.endsAt).toBe('2026-04-10T12:00:00.000Z');
      // A repeated notification of it records nothing (the service asks the provider again, with the same request id).
      spec.given([recorded(), started(), repeat]).when(again()).thenNothingHappened();
    });

    it('its Refund notification marks it refunded (nothing more to refund) and takes back no paid time', () => {
      const refunded: BillingEvent = { type: 'PaymentRefunded', data: { version: 1, userId: '42', paymentId: '1002', refundId: '5001', amount: '299.00', subscriptionId: SUB1, endsAt: '2026-04-10T12:00:00.000Z', at } };
      spec.given([recorded(), started(), repeat]).when({ type: 'RecordRefund', userId: '42', paymentId: '1002', refundId: '5001', amount: '299.00', now }).then([refunded]);
      expect(repeatPurchaseToRefund(state([recorded(), started(), repeat, refunded]), '1002')).toBeUndefined();
    });

    it('every other payment keeps the rules: later than 10 minutes, another plan, a share of a price, a recurring charge, or a cancelled subscription', () => {
      const extends_ = (c: BillingCommand) => expect([billingDecider.decide(c, state([recorded(), started()]))].flat().map((e) => e.type)).toEqual(['PaymentRecorded', 'SubscriptionExtended']);
      extends_(again({ now: new Date(now.getTime() + 10 * 60_000 + 1) }));
      extends_(again({ plan: yearly!, payment: { transactionId: '1002', amount: '2990.00', currency: 'RUB', invoiceId: 'tab-2', externalId: null } }));
      extends_(again({ share: { paidMinor: 14950, priceMinor: 29900 }, payment: { transactionId: '1002', amount: '149.50', currency: 'RUB', invoiceId: 'tab-2', externalId: null } }));
      extends_(again({ payment: { transactionId: '1002', amount: '299.00', currency: 'RUB', invoiceId: null, externalId: 'sc_1' } }));
      const cancelled: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'user_cancelled', at } };
      expect([billingDecider.decide(again(), state([recorded(), started(), cancelled]))].flat().map((e) => e.type)).toEqual(['PaymentRecorded', 'SubscriptionExtended']);
    });

    it('checkout is refused while a paid plan is usable, allowed with none or after it ended', () => {
      expect(checkoutConflict(state([]), now)).toBeUndefined();
      expect(checkoutConflict(state([recorded(), started()]), now)).toMatchObject({ code: 'conflict', message: expect.stringContaining('You already have an active subscription until 2026-04-10T12:00:00.000Z') });
      expect(checkoutConflict(state([recorded(), started()]), new Date('2026-04-10T12:00:00.001Z'))).toBeUndefined();
    });
  });
});

describe('billing decider: change of plan', () => {
  const state = (events: BillingEvent[]) => events.reduce(billingDecider.evolve, billingDecider.initialState());
  // Ten days into a 31-day month (March 10 to April 10 is 31 days): 21 of them unused.
  const later = new Date('2026-03-20T12:00:00.000Z');
  const charge = { transactionId: '3001', amount: '2787.46', currency: 'RUB', invoiceId: 'plan-change-x', cardLastFour: '4242' };
  const toYearly = (over: Partial<Extract<BillingCommand, { type: 'ChangePlan' }>> = {}): BillingCommand => ({ type: 'ChangePlan', userId: '42', to: yearly!, externalId: 'sc_y', charge, credit: '202.54', now: later, ...over });

  it('the credit is the monthly price times the unused share of the month that ends, floored to the kopeck', () => {
    // 29900 × 21 days / 31 days = 20254.8… kopecks: 202.54 RUB.
    expect(planChangeCreditMinor(new Date('2026-04-10T12:00:00.000Z'), later, 29900n, 299000n)).toBe((29900n * 21n) / 31n);
    expect(planChangeCreditMinor(new Date('2026-04-10T12:00:00.000Z'), new Date('2026-04-10T12:00:00.000Z'), 29900n, 299000n)).toBe(0n);
    // February (28 days) ending on March 10: half of it unused is half the price.
    expect(planChangeCreditMinor(new Date('2026-03-10T00:00:00.000Z'), new Date('2026-02-24T00:00:00.000Z'), 29900n, 299000n)).toBe(14950n);
  });

  it('monthly to yearly takes effect now: the charge recorded, the year from now, the credit and the new provider subscription kept', () => {
    spec
      .given([recorded(), started()])
      .when(toYearly())
      .then([
        recorded({ paymentId: '3001', uuid: '3001', invoiceId: 'plan-change-x', amount: '2787.46', planCode: 'basic-y', cardLastFour: '4242', at: later.toISOString() }),
        {
          type: 'SubscriptionExtended',
          data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-y', endsAt: '2027-03-20T12:00:00.000Z', externalId: 'sc_y', planChange: { fromPlanCode: 'basic-m', credit: '202.54' }, at: later.toISOString() },
        },
      ]);
    const after = state([recorded(), started(), ...[billingDecider.decide(toYearly(), state([recorded(), started()]))].flat()]);
    expect(currentSubscription(after)).toMatchObject({ planCode: 'basic-y', endsAt: '2027-03-20T12:00:00.000Z', externalId: 'sc_y', status: 'active' });
    // The same charge again changes nothing.
    spec.given([recorded(), started(), ...[billingDecider.decide(toYearly(), state([recorded(), started()]))].flat()]).when(toYearly()).thenNothingHappened();
  });

  it('yearly to monthly takes effect at the period\'s end: only the new provider subscription, charging the monthly plan from ends_at', () => {
    const y = [recorded({ planCode: 'basic-y', amount: '2990.00' }), started({ planCode: 'basic-y', endsAt: '2027-03-10T12:00:00.000Z' })];
    const toMonthly = toYearly({ to: monthly!, externalId: 'sc_m', charge: null, credit: null });
    spec.given(y).when(toMonthly).then([{ type: 'SubscriptionResumed', data: { version: 1, userId: '42', subscriptionId: SUB1, externalId: 'sc_m', nextPlanCode: 'basic-m', at: later.toISOString() } }]);
    const resumed: BillingEvent = { type: 'SubscriptionResumed', data: { version: 1, userId: '42', subscriptionId: SUB1, externalId: 'sc_m', nextPlanCode: 'basic-m', at } };
    expect(currentSubscription(state([...y, resumed]))).toMatchObject({ planCode: 'basic-y', endsAt: '2027-03-10T12:00:00.000Z', externalId: 'sc_m' });
    spec.given([...y, resumed]).when(toMonthly).thenNothingHappened();
    // Its first charge, on the last day, extends the subscription from its end with the monthly plan.
    spec
      .given([...y, resumed])
      .when(pay({ source: 'webhook', uuid: '4001', payment: { transactionId: '4001', amount: '299.00', currency: 'RUB', invoiceId: null, externalId: 'sc_m' }, now: new Date('2027-03-10T11:00:00.000Z') }))
      .then([
        recorded({ paymentId: '4001', uuid: '4001', invoiceId: null, source: 'webhook', at: '2027-03-10T11:00:00.000Z' }),
        { type: 'SubscriptionExtended', data: { version: 1, userId: '42', subscriptionId: SUB1, planCode: 'basic-m', endsAt: '2027-04-10T12:00:00.000Z', externalId: 'sc_m', at: '2027-03-10T11:00:00.000Z' } },
      ]);
  });

  it('refuses the same plan, no active subscription, a cancelled one, and a free plan', () => {
    spec.given([recorded(), started()]).when(toYearly({ to: monthly! })).thenThrows(expect.objectContaining({ code: 'conflict' }) as never);
    spec.given().when(toYearly()).thenThrows(expect.objectContaining({ code: 'conflict' }) as never);
    const cancelled: BillingEvent = { type: 'SubscriptionCancelled', data: { version: 1, userId: '42', subscriptionId: SUB1, reason: 'user_cancelled', at } };
    spec.given([recorded(), started(), cancelled]).when(toYearly()).thenThrows(expect.objectContaining({ code: 'conflict' }) as never);
    spec.given([recorded(), started()]).when(toYearly({ to: plans.find((p) => p.code === 'free')! })).thenThrows(expect.objectContaining({ code: 'validation_failed' }) as never);
  });
});
