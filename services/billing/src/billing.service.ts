import { randomUUID } from 'node:crypto';
import {
  BillingEventTypes,
  billingEvents,
  changePlanRequestSchema,
  type CheckoutReply,
  checkoutRequestSchema,
  type Entitlements,
  ErrorCode,
  type ListPaymentsReply,
  type Page,
  pageQuerySchema,
  type PaymentHistoryItem,
  type ListPlansReply,
  type PlanCode,
  type ProviderNotification,
  providerNotificationSchema,
  type SubscriptionReply,
  subscribeRequestSchema,
  userIdProblem,
} from '@invest/contracts';
import {
  appendToStream,
  type Db,
  eventIdFor,
  EventIdConflictError,
  type Logger,
  parseOrThrow,
  ProviderError,
  ServiceError,
} from '@invest/platform';
import { entitlementsFor } from './entitlements/plan-limits.js';
import { fromMinorUnits, normalizeAmount, sameAmount, toMinorUnits } from './plans/money.js';
import { addPeriod, type Plan, planForPayment, planView } from './plans/plan-catalog.js';
import { customerReceipt, type ReceiptSettings } from './plans/receipt.js';
import { type CloudPaymentsClient, subscriptionTerms } from './provider/cloudpayments.client.js';
import { verifyCloudPaymentsSignature } from './provider/cloudpayments-signature.js';
import { signedNotificationParams } from './provider/notification-body.js';
import type { NotificationOutcome } from './provider/notification.metrics.js';
import { paymentEventIds, readBillingState, runBillingCommand, subscriptionIdFor } from './subscriptions/billing-commands.js';
import { BillingCommandBatches } from './subscriptions/billing-command-batch.js';
import { activeSubscriptionConflict, type BillingCommand, cancellable, checkoutConflict, isActive, planChangeable, planChangeCreditMinor, repeatPurchaseToRefund, resumable } from './subscriptions/subscription.decider.js';
import { projectBillingEvent } from './subscriptions/subscription.projection.js';
import { saveCard, savedCard } from './subscriptions/payment-cards.js';
import { findCurrentSubscription, findPaymentByUuid, findSubscription, listPayments, paymentHistoryPage, usableSubscriptions } from './subscriptions/subscription.queries.js';

export interface BillingServiceOptions {
  plans: Plan[];
  apiSecret: string;
  /** Accept `TestMode=1` payments (development); in production they are recorded as unattributed. */
  acceptTestPayments: boolean;
  clock: () => Date;
  logger: Logger;
  /** The receipt (54-FZ) settings every charge's receipt object is made with. */
  receipt?: ReceiptSettings;
}

const ACCEPTED_STATUSES = new Set(['Completed', 'Authorized']);
/** A user id as the gateway's tokens carry it (`userIdProblem`: any Unicode but controls, lone surrogates, padding). */
const isUserId = (id: string | undefined): id is string => userIdProblem(id) === undefined;
/** `TestMode` as a form (`1`) or a JSON notification (`true`, `1`) sends it. */
const isTestMode = (v: string | undefined) => v === '1' || v?.toLowerCase() === 'true';
const CANCELLING: Record<string, 'provider_cancelled' | 'provider_rejected' | 'provider_expired'> = {
  Cancelled: 'provider_cancelled',
  Rejected: 'provider_rejected',
  Expired: 'provider_expired',
};

/**
 * Billing's use cases at the edge: provider calls, signature checks and queries around the pure decider
 * (subscriptions/subscription.decider.ts), which every state change goes through.
 */
export class BillingService {
  private readonly planIds: Record<PlanCode, number>;
  private readonly payBatches: BillingCommandBatches;

  constructor(
    private readonly db: Db,
    private readonly provider: CloudPaymentsClient,
    private readonly opts: BillingServiceOptions,
  ) {
    this.planIds = Object.fromEntries(opts.plans.map((p) => [p.code, p.id])) as Record<PlanCode, number>;
    this.payBatches = new BillingCommandBatches(db);
  }

  listPlans(): ListPlansReply {
    // With each paid plan, the receipt object its charge carries: the checkout puts it in the widget's data.
    return { data: this.opts.plans.map((p) => ({ ...planView(p), receipt: customerReceipt(p, this.opts.receipt) })) };
  }

  async current(userId: string): Promise<SubscriptionReply> {
    return { data: await findCurrentSubscription(this.db, userId, this.opts.plans, this.opts.clock()) };
  }

  /** `GET /api/payments`: every payment recorded for the user, those that grant no paid access too. */
  async payments(userId: string): Promise<ListPaymentsReply> {
    return { data: await listPayments(this.db, userId) };
  }

  /** `GET /api/subscription/payments`: the user's charges, paid, refunded or failed, a page at a time. */
  async paymentHistory(userId: string, input: unknown): Promise<Page<PaymentHistoryItem>> {
    return paymentHistoryPage(this.db, userId, parseOrThrow(pageQuerySchema, input), this.opts.plans);
  }

  /**
   * `POST /api/subscription/checkout`: asked before the widget opens. While a paid plan is usable, 409 (one purchase
   * at a time; a payment that still comes from another tab is refunded, see `isRepeatPurchase`); else what the
   * widget pays: the invoice, the plan's price, this user as the account and the plan's recurrent charge.
   */
  async checkout(userId: string, input: unknown): Promise<CheckoutReply> {
    const req = parseOrThrow(checkoutRequestSchema, input);
    const plan = this.opts.plans.find((p) => p.code === req.plan);
    if (!plan || !plan.paid || !plan.price || !plan.currency || !plan.period) throw ServiceError.validation({ plan: ['The selected plan is invalid; choose one of: ' + this.paidCodes() + '.'] });
    const conflict = checkoutConflict(await readBillingState(this.db, userId), this.opts.clock());
    if (conflict) throw conflict;
    return {
      data: { invoice_id: req.invoice_id ?? randomUUID(), plan: plan.code, amount: plan.price, currency: plan.currency, account_id: userId, recurrent: { interval: 'Month', period: plan.period === 'year' ? 12 : 1 }, receipt: customerReceipt(plan, this.opts.receipt) },
    };
  }

  /** `POST /api/subscribe`: confirms the client's payment with the provider, then records it once. */
  async subscribe(userId: string, input: unknown): Promise<SubscriptionReply> {
    const req = parseOrThrow(subscribeRequestSchema, input);
    const plan = this.opts.plans.find((p) => p.code === req.plan);
    if (!plan || !plan.paid) throw ServiceError.validation({ plan: ['The selected plan is invalid; choose one of: ' + this.paidCodes() + '.'] });
    const now = this.opts.clock();

    // The current subscription is read before the uuid: a subscription this very payment started (its webhook
    // racing this call) is then seen with its payment, and answered as a repeat, not as a 409.
    const current = await findCurrentSubscription(this.db, userId, this.opts.plans, now);
    // A repeated uuid answers the first result, without asking the provider again.
    const known = await findPaymentByUuid(this.db, req.uuid);
    if (known) {
      if (known.user_id !== userId) throw ServiceError.validation({ uuid: ['The uuid does not match a payment of yours.'] });
      // Its Pay notification recorded it, worth less than a day of its plan: no subscription to answer (the
      // provider check below refuses such an amount too, had this call come first).
      if (!known.grants_access) throw ServiceError.validation({ uuid: [`The payment of ${known.amount} ${known.currency} is worth less than one day of a paid plan: it is recorded, but grants no paid access.`] });
      return { data: await findSubscription(this.db, known.subscription_id, this.opts.plans, now) };
    }
    // The spec's 409 comes before the payment is looked at (an unknown or unpaid uuid changes nothing either);
    // the decider checks it again on the stream, for a subscription started meanwhile.
    if (current && isActive({ status: current.status, endsAt: current.ends_at }, now)) throw activeSubscriptionConflict({ id: current.id, endsAt: current.ends_at });

    const payment = await this.provider.findPayment(req.uuid).catch((err: unknown) => {
      throw this.providerDown(err, 'Could not confirm the payment with the payment provider; nothing was recorded. Please try again.');
    });
    const problem = !payment
      ? 'No payment with this uuid was found at the payment provider.'
      : !ACCEPTED_STATUSES.has(payment.status)
        ? `The payment is not completed (status ${payment.status || 'unknown'}).`
        : payment.accountId !== userId
          ? 'The payment was made for another account.'
          : !sameAmount(payment.amount, plan.price) || payment.currency !== plan.currency
            ? `The payment amount ${payment.amount ?? '?'} ${payment.currency} does not match the ${plan.code} price ${plan.price} ${plan.currency}.`
            : !payment.testMode || this.opts.acceptTestPayments
              ? undefined
              : 'The payment was made in test mode.';
    if (problem || !payment) throw ServiceError.validation({ uuid: [problem!] });

    try {
      await runBillingCommand(
        this.db,
        {
          type: 'RecordPayment',
          source: 'client',
          userId,
          uuid: req.uuid,
          payment: { transactionId: payment.transactionId, amount: payment.amount!, currency: payment.currency, invoiceId: req.uuid, externalId: payment.subscriptionId, cardLastFour: payment.cardLastFour },
          plan,
          share: null,
          newSubscriptionId: subscriptionIdFor(payment.transactionId),
          now,
        },
        paymentEventIds(payment.transactionId),
      );
    } catch (err) {
      if (err instanceof EventIdConflictError) throw ServiceError.conflict('This payment was already recorded and cannot be applied again.');
      throw err;
    }
    if (payment.token) await saveCard(this.db, userId, { token: payment.token, cardLastFour: payment.cardLastFour, at: now });
    const recorded = await findPaymentByUuid(this.db, req.uuid);
    const [row] = recorded ? [] : await this.db.query<{ subscription_id: string }>('select subscription_id::text from subscription_payments where transaction_id = $1', [payment.transactionId]);
    const subscriptionId = recorded?.subscription_id ?? row?.subscription_id;
    return { data: subscriptionId ? await findSubscription(this.db, subscriptionId, this.opts.plans, now) : null };
  }

  /** `POST /api/provider/payment-success`: a signed Pay notification; what it came to once it is recorded (or known). */
  async pay(input: unknown): Promise<NotificationOutcome> {
    const { raw, params, nul } = this.verifiedParams(input, 'pay');
    const transactionId = params.TransactionId;
    const amount = normalizeAmount(params.Amount);
    const currency = params.Currency;
    if (!transactionId || !/^\d{1,20}$/.test(transactionId) || !amount || !currency) {
      // Each field named as it is wrong (a malformed amount is not a missing one); signed, so the provider sent
      // it: a warning for an operator, not an error of ours.
      const errors: Record<string, string[]> = {};
      if (!transactionId) errors.TransactionId = ['The TransactionId is required.'];
      else if (!/^\d{1,20}$/.test(transactionId)) errors.TransactionId = ['The TransactionId must be a whole number of at most 20 digits.'];
      if (!params.Amount) errors.Amount = ['The Amount is required.'];
      else if (!amount) errors.Amount = ['The Amount must be a non-negative decimal with at most 2 places, below 1e12.'];
      if (!currency) errors.Currency = ['The Currency is required.'];
      this.opts.logger.warn({ notification: 'pay', bytes: raw.length, transactionId, fields: Object.keys(errors) }, 'billing: signed Pay notification with a missing or malformed field refused');
      throw ServiceError.validation(errors);
    }
    const status = params.Status ?? '';
    if (!ACCEPTED_STATUSES.has(status) || (params.OperationType && params.OperationType !== 'Payment')) {
      this.opts.logger.info({ transactionId, status, operationType: params.OperationType }, 'billing: Pay notification is not an accepted payment; ignored');
      return 'ignored';
    }
    const now = this.opts.clock();
    const accountId = params.AccountId ?? null;
    const invoiceId = params.InvoiceId ?? null;
    const bought = planForPayment(this.opts.plans, amount, currency);
    const unattributed =
      nul.length > 0
        ? `a NUL character in ${nul.join(', ')}`
        : !isUserId(accountId ?? undefined)
        ? 'no usable AccountId'
        : !bought
          ? ((toMinorUnits(amount) ?? 0n) > 0n ? `no paid plan is priced in ${currency}` : `the amount ${amount} is not positive`)
          : isTestMode(params.TestMode) && !this.opts.acceptTestPayments
            ? 'test-mode payment'
            : undefined;
    if (unattributed || !bought || !accountId) {
      await this.recordUnattributed({ transactionId, accountId, invoiceId, amount, currency, reason: unattributed ?? 'unattributable', now });
      return 'unattributed';
    }
    let outcome: NotificationOutcome = 'duplicate';
    try {
      // Group-committed with the Pay notifications arriving meanwhile (one transaction per batch, see BillingCommandBatches).
      const result = await this.payBatches.run(
        {
          type: 'RecordPayment',
          source: 'webhook',
          userId: accountId,
          uuid: transactionId,
          payment: { transactionId, amount, currency, invoiceId, externalId: params.SubscriptionId ?? null, cardLastFour: params.CardLastFour ?? null },
          plan: bought.plan,
          share: bought.share,
          newSubscriptionId: subscriptionIdFor(transactionId),
          now,
        },
        paymentEventIds(transactionId),
      );
      const repeat = repeatPurchaseToRefund(result.newState, transactionId);
      if (result.newEvents.length) {
        outcome = 'accepted';
        if (params.Token && !repeat) await saveCard(this.db, accountId, { token: params.Token, cardLastFour: params.CardLastFour ?? null, at: now });
        this.opts.logger.info({ transactionId, userId: accountId, plan: bought.plan.code, events: result.newEvents.map((e) => e.type), repeatOf: repeat?.repeatOf }, 'billing: payment recorded');
      } else {
        this.opts.logger.info({ transactionId, userId: accountId }, 'billing: payment already recorded; notification acknowledged');
      }
      // A repeat purchase is refunded in full; until its Refund notification is recorded, a repeated notification
      // asks again (one X-Request-ID: the provider refunds once). Failing here answers 5xx, so the provider retries.
      if (repeat) {
        await this.provider.refundPayment(transactionId, repeat.amount, `repeat-purchase-${transactionId}`).catch((err: unknown) => {
          this.opts.logger.error({ err, transactionId, userId: accountId }, 'billing: could not refund a repeat purchase; the provider\'s retry of the notification asks again');
          throw this.providerDown(err, 'Could not refund a repeat purchase at the payment provider; it is recorded and will be refunded on the next attempt.');
        });
        this.opts.logger.info({ transactionId, userId: accountId, repeatOf: repeat.repeatOf, amount: repeat.amount }, 'billing: repeat purchase refunded at the provider');
      }
    } catch (err) {
      if (!(err instanceof EventIdConflictError)) throw err;
      this.opts.logger.warn({ transactionId, userId: accountId }, 'billing: payment id already recorded elsewhere (unattributed or another account); acknowledged');
    }
    return outcome;
  }

  /** `POST /api/provider/recurrent`: the provider cancelled, rejected or ended a recurring subscription. */
  async recurrent(input: unknown): Promise<NotificationOutcome> {
    const { params } = this.verifiedParams(input, 'recurrent');
    const externalId = params.Id;
    const reason = CANCELLING[params.Status ?? ''];
    if (!externalId || !reason) {
      this.opts.logger.info({ externalId, status: params.Status }, 'billing: Recurrent notification changes nothing here');
      return 'ignored';
    }
    let userId = isUserId(params.AccountId) ? params.AccountId : undefined;
    if (!userId) {
      const [row] = await this.db.query<{ user_id: string }>('select user_id from subscriptions where external_id = $1 limit 1', [externalId]);
      userId = row?.user_id;
    }
    if (!userId) {
      this.opts.logger.warn({ externalId, status: params.Status }, 'billing: Recurrent notification for an unknown subscription; acknowledged');
      return 'ignored';
    }
    const result = await runBillingCommand(this.db, {
      type: 'CancelByProvider',
      userId,
      externalId,
      terms: subscriptionTerms({ amount: params.Amount, currency: params.Currency, interval: params.Interval, period: params.Period, startedAt: params.StartDate }),
      plans: this.opts.plans,
      reason,
      now: this.opts.clock(),
    });
    if (!result.newEvents.length) return 'duplicate';
    this.opts.logger.info({ userId, externalId, reason }, 'billing: subscription cancelled by the provider');
    return 'accepted';
  }

  /**
   * `POST /api/subscription/cancel`: stops the recurring charge at the provider (`subscriptions/cancel`), then
   * records the cancellation; the paid time stays usable until `ends_at`. A repeat changes nothing. The first
   * payment's provider subscription is named only with its next charge, so an unnamed one is looked up by the
   * account (and linked, when it fits the run) first; none found, nothing charges again, and it is recorded.
   */
  async cancel(userId: string): Promise<SubscriptionReply> {
    const now = this.opts.clock();
    let target = cancellable(await readBillingState(this.db, userId), now);
    if (target instanceof ServiceError) throw target;
    if (target !== 'already' && target.externalId === null) {
      await this.reconcile(userId, 'cancel', 'Could not reach the payment provider to cancel the recurring charge; nothing was changed. Please try again.');
      target = cancellable(await readBillingState(this.db, userId), now);
      if (target instanceof ServiceError) throw target;
    }
    if (target !== 'already') {
      const externalId = target.externalId;
      if (externalId) {
        await this.provider.cancelSubscription(externalId).catch((err: unknown) => {
          throw this.providerDown(err, 'Could not cancel the recurring charge at the payment provider; nothing was changed. Please try again.');
        });
      }
      await runBillingCommand(this.db, { type: 'CancelByUser', userId, now });
      this.opts.logger.info({ userId, subscriptionId: target.id, externalId }, 'billing: subscription cancelled by the user');
    }
    return this.current(userId);
  }

  /**
   * `POST /api/subscription/resume`: before `ends_at`, brings the recurring charge back as a new provider
   * subscription (`subscriptions/create`, first charge at `ends_at`, the card last paid with). Never
   * `subscriptions/update` on the cancelled one: that reactivates it at the provider, outside our records. A
   * repeat, or a resume racing it, sends the same `X-Request-ID` (from the state it resumes), so the provider
   * creates one subscription.
   */
  async resume(userId: string): Promise<SubscriptionReply> {
    const now = this.opts.clock();
    const state = await readBillingState(this.db, userId);
    const target = resumable(state, now);
    if (target instanceof ServiceError) throw target;
    if (target !== 'already') {
      const plan = this.opts.plans.find((p) => p.code === target.planCode);
      const card = await savedCard(this.db, userId);
      if (!plan?.price || !plan.currency || !plan.period || !card || target.endsAt === null) {
        throw ServiceError.conflict(`No saved card to charge again, so the recurring charge cannot be resumed. Your subscription stays usable until ${target.endsAt}; subscribe again after it ends.`, { ends_at: target.endsAt });
      }
      const externalId = await this.provider
        .createSubscription(
          { token: card.token, accountId: userId, description: plan.title, amount: plan.price, currency: plan.currency, startDate: new Date(target.endsAt), months: plan.period === 'year' ? 12 : 1, receipt: customerReceipt(plan, this.opts.receipt) },
          `resume-${target.id}-${state.changes}`,
        )
        .catch((err: unknown) => {
          throw this.providerDown(err, 'Could not restore the recurring charge at the payment provider; nothing was changed. Please try again.');
        });
      await runBillingCommand(this.db, { type: 'Resume', userId, externalId, now });
      this.opts.logger.info({ userId, subscriptionId: target.id, externalId }, 'billing: subscription resumed by the user');
    }
    return this.current(userId);
  }

  /**
   * `POST /api/subscription/change-plan`: to a yearly plan now, the monthly plan's unused time credited
   * (`planChangeCreditMinor`): the saved card is charged the yearly price less the credit (`payments/tokens/charge`),
   * the old provider subscription cancelled and a yearly one created from a year on; to a monthly plan at the
   * period's end: the old provider subscription cancelled and a monthly one created from `ends_at`, whose first
   * charge extends the subscription with the monthly plan. Never `subscriptions/update`. Each provider call carries
   * an `X-Request-ID` from the state it changes, so a retry after a failure charges and creates once.
   */
  async changePlan(userId: string, input: unknown): Promise<SubscriptionReply> {
    const req = parseOrThrow(changePlanRequestSchema, input);
    const to = this.opts.plans.find((p) => p.code === req.plan);
    if (!to || !to.paid || !to.price || !to.currency || !to.period) throw ServiceError.validation({ plan: ['The selected plan is invalid; choose one of: ' + this.paidCodes() + '.'] });
    const now = this.opts.clock();
    const down = 'Could not change the plan at the payment provider; try again (nothing is charged twice).';
    let state = await readBillingState(this.db, userId);
    let sub = planChangeable(state, to, now);
    if (sub instanceof ServiceError) throw sub;
    if (sub.externalId === null) {
      // The first payment's provider subscription is named only with its next charge: find it to cancel it.
      await this.reconcile(userId, 'cancel', down);
      state = await readBillingState(this.db, userId);
      sub = planChangeable(state, to, now);
      if (sub instanceof ServiceError) throw sub;
    }
    const target = sub;
    const from = this.opts.plans.find((p) => p.code === target.planCode);
    const card = await savedCard(this.db, userId);
    if (!card || !from?.price) throw ServiceError.conflict('No saved card to charge, so the plan cannot be changed now. Change it after your subscription ends by subscribing to the other plan.');
    const key = `plan-change-${target.id}-${state.changes}`;
    const newSubscription = (startDate: Date) =>
      this.provider.createSubscription(
        { token: card.token, accountId: userId, description: to.title, amount: to.price!, currency: to.currency!, startDate, months: to.period === 'year' ? 12 : 1, receipt: customerReceipt(to, this.opts.receipt) },
        `${key}-subscription`,
      );
    const fail = (err: unknown) => {
      throw this.providerDown(err, down);
    };
    let charge: Extract<BillingCommand, { type: 'ChangePlan' }>['charge'] = null;
    let credit: string | null = null;
    let startDate = new Date(target.endsAt!);
    if (to.period === 'year') {
      const creditMinor = planChangeCreditMinor(new Date(target.endsAt!), now, toMinorUnits(from.price)!, toMinorUnits(to.price)!);
      const due = toMinorUnits(to.price)! - creditMinor;
      if (due <= 0n) throw ServiceError.conflict('Your paid time is worth the whole new plan; change the plan when it is closer to its end.');
      credit = fromMinorUnits(creditMinor);
      // The receipt's total is the sum charged: the year's price less the credit.
      const amount = fromMinorUnits(due);
      const receipt = customerReceipt(to, this.opts.receipt, amount);
      const paid = await this.provider.chargeToken({ token: card.token, accountId: userId, amount, currency: to.currency, invoiceId: key, description: to.title, receipt }, `${key}-charge`).catch(fail);
      charge = { transactionId: paid.transactionId, amount: paid.amount ?? fromMinorUnits(due), currency: paid.currency || to.currency, invoiceId: key, cardLastFour: paid.cardLastFour };
      startDate = addPeriod(now, 'year');
    }
    if (target.externalId) await this.provider.cancelSubscription(target.externalId).catch(fail);
    const externalId = await newSubscription(startDate).catch(fail);
    await runBillingCommand(this.db, { type: 'ChangePlan', userId, to, externalId, charge, credit, now }, charge ? paymentEventIds(charge.transactionId) : undefined);
    this.opts.logger.info({ userId, subscriptionId: target.id, from: target.planCode, to: to.code, credit, charged: charge?.amount, externalId }, 'billing: plan changed');
    return this.current(userId);
  }

  /**
   * `POST /api/provider/fail`: a signed Fail notification (a declined charge), recorded once per its
   * TransactionId. A recurring charge's subscription becomes `past_due`, usable through the grace period while the
   * provider tries again; the history lists the charge as failed. `Rejected` (the third failure) comes as a
   * Recurrent notification and cancels it: access then ends with the grace period.
   */
  async fail(input: unknown): Promise<NotificationOutcome> {
    const { raw, params, nul } = this.verifiedParams(input, 'fail');
    const transactionId = params.TransactionId;
    const amount = normalizeAmount(params.Amount);
    const currency = params.Currency;
    if (!transactionId || !/^\d{1,20}$/.test(transactionId) || !amount || !currency) {
      const errors: Record<string, string[]> = {};
      if (!transactionId || !/^\d{1,20}$/.test(transactionId)) errors.TransactionId = ['The TransactionId must be a whole number of at most 20 digits.'];
      if (!amount) errors.Amount = ['The Amount must be a non-negative decimal with at most 2 places, below 1e12.'];
      if (!currency) errors.Currency = ['The Currency is required.'];
      this.opts.logger.warn({ notification: 'fail', bytes: raw.length, transactionId, fields: Object.keys(errors) }, 'billing: signed Fail notification with a missing or malformed field refused');
      throw ServiceError.validation(errors);
    }
    const externalId = params.SubscriptionId ?? null;
    let userId = isUserId(params.AccountId) && nul.length === 0 ? params.AccountId : undefined;
    if (!userId && externalId) {
      const [row] = await this.db.query<{ user_id: string }>('select user_id from subscriptions where external_id = $1 limit 1', [externalId]);
      userId = row?.user_id;
    }
    if (!userId) {
      this.opts.logger.warn({ transactionId, externalId }, 'billing: Fail notification for no known account; acknowledged');
      return 'ignored';
    }
    try {
      const result = await runBillingCommand(
        this.db,
        {
          type: 'RecordFailedCharge',
          userId,
          paymentId: transactionId,
          externalId,
          amount,
          currency,
          planCode: planForPayment(this.opts.plans, amount, currency)?.plan.code ?? null,
          reason: params.Reason ?? null,
          cardLastFour: params.CardLastFour ?? null,
          plans: this.opts.plans,
          now: this.opts.clock(),
        },
        [eventIdFor('failed-charge', transactionId)],
      );
      const failed = result.newEvents.find((e) => e.type === 'ChargeFailed');
      if (failed?.type === 'ChargeFailed') {
        const d = failed.data;
        this.opts.logger.info({ userId, transactionId, subscriptionId: d.subscriptionId, attempt: d.attempt, attemptsLeft: d.attemptsLeft, graceUntil: d.graceUntil, reason: d.reason }, 'billing: charge declined');
      }
      return result.newEvents.length ? 'accepted' : 'duplicate';
    } catch (err) {
      if (!(err instanceof EventIdConflictError)) throw err;
      return 'duplicate';
    }
  }

  /**
   * `POST /api/provider/refund`: a signed Refund notification. Recorded once per refund TransactionId, against the
   * user whose payment `PaymentTransactionId` is (the notification's AccountId is the browser's); it takes back
   * the paid time the refunded share of the payment bought, and the history shows the payment as refunded.
   */
  async refund(input: unknown): Promise<NotificationOutcome> {
    const { raw, params } = this.verifiedParams(input, 'refund');
    const refundId = params.TransactionId;
    const paymentId = params.PaymentTransactionId;
    const amount = normalizeAmount(params.Amount);
    const digits = /^\d{1,20}$/;
    if (!refundId || !digits.test(refundId) || !paymentId || !digits.test(paymentId) || !amount) {
      const errors: Record<string, string[]> = {};
      if (!refundId || !digits.test(refundId)) errors.TransactionId = ['The TransactionId must be a whole number of at most 20 digits.'];
      if (!paymentId || !digits.test(paymentId)) errors.PaymentTransactionId = ['The PaymentTransactionId must be a whole number of at most 20 digits.'];
      if (!amount) errors.Amount = ['The Amount must be a non-negative decimal with at most 2 places, below 1e12.'];
      this.opts.logger.warn({ notification: 'refund', bytes: raw.length, refundId, fields: Object.keys(errors) }, 'billing: signed Refund notification with a missing or malformed field refused');
      throw ServiceError.validation(errors);
    }
    const [owner] = await this.db.query<{ user_id: string }>('select user_id from subscription_payments where transaction_id = $1', [paymentId]);
    if (!owner) {
      this.opts.logger.warn({ refundId, paymentId, amount }, 'billing: Refund of a payment recorded for no user (unattributed or unknown); acknowledged');
      return 'ignored';
    }
    if (params.AccountId && params.AccountId !== owner.user_id) this.opts.logger.warn({ refundId, paymentId }, 'billing: Refund notification names another AccountId than its payment; applied to the payment\'s user');
    try {
      const result = await runBillingCommand(
        this.db,
        { type: 'RecordRefund', userId: owner.user_id, paymentId, refundId, amount, now: this.opts.clock() },
        [eventIdFor('refund', refundId)],
      );
      if (!result.newEvents.length) return 'duplicate';
      this.opts.logger.info({ userId: owner.user_id, paymentId, refundId, amount }, 'billing: refund recorded; its paid time taken back');
      return 'accepted';
    } catch (err) {
      if (!(err instanceof EventIdConflictError)) throw err;
      return 'duplicate';
    }
  }

  /**
   * `POST /api/provider/receipt`: a signed Receipt notification (54-FZ), recorded once per its TransactionId and
   * `Type`, against the user whose payment (or refund) it is: the notification's AccountId is the browser's. A
   * payment's receipt link (`Url`) is then shown in the payment history. One of an unattributed payment is
   * acknowledged and logged; one of a transaction not recorded yet answers 503, so the provider retries it.
   */
  async receipt(input: unknown): Promise<NotificationOutcome> {
    const { raw, params } = this.verifiedParams(input, 'receipt');
    const transactionId = params.TransactionId;
    const url = params.Url;
    const receiptType = params.Type || 'Income';
    const digits = /^\d{1,20}$/;
    const httpUrl = !!url && /^https?:\/\/\S+$/i.test(url) && url.length <= 2048;
    if (!transactionId || !digits.test(transactionId) || !httpUrl) {
      const errors: Record<string, string[]> = {};
      if (!transactionId || !digits.test(transactionId)) errors.TransactionId = ['The TransactionId must be a whole number of at most 20 digits.'];
      if (!httpUrl) errors.Url = ['The Url must be an http(s) link of at most 2048 characters.'];
      this.opts.logger.warn({ notification: 'receipt', bytes: raw.length, transactionId, fields: Object.keys(errors) }, 'billing: signed Receipt notification with a missing or malformed field refused');
      throw ServiceError.validation(errors);
    }
    const [owner] = await this.db.query<{ user_id: string }>(
      `select user_id from payment_history where payment_id = $1
       union all select data->>'userId' from es_events where type = 'PaymentRefunded' and data->>'refundId' = $1 and stream_name like 'billing-user-%'
       limit 1`,
      [transactionId],
    );
    if (!owner) {
      const [unattributed] = await this.db.query('select 1 from unattributed_payments where transaction_id = $1', [transactionId]);
      if (unattributed) {
        this.opts.logger.warn({ transactionId, receiptType }, 'billing: Receipt of an unattributed payment; acknowledged');
        return 'unattributed';
      }
      // Not recorded yet (the receipt overtook its Pay notification): a 503, so the provider sends it again later.
      this.opts.logger.warn({ transactionId, receiptType }, 'billing: Receipt of a transaction not recorded yet; refused so the provider retries');
      throw new ServiceError(ErrorCode.Unavailable, 'The transaction of this receipt is not recorded yet; send it again later.');
    }
    try {
      const result = await runBillingCommand(
        this.db,
        { type: 'RecordReceipt', userId: owner.user_id, transactionId, receiptType, url, documentNumber: params.DocumentNumber || null, now: this.opts.clock() },
        [eventIdFor('receipt', receiptType, transactionId)],
      );
      if (!result.newEvents.length) return 'duplicate';
      this.opts.logger.info({ userId: owner.user_id, transactionId, receiptType }, 'billing: fiscal receipt recorded');
      return 'accepted';
    } catch (err) {
      if (!(err instanceof EventIdConflictError)) throw err;
      return 'duplicate';
    }
  }

  /** `POST /api/sync-subscription`: status and end date as the provider has them. */
  async sync(userId: string): Promise<SubscriptionReply> {
    await this.reconcileUser(userId, 'sync');
    return this.current(userId);
  }

  /** Reconciles one user with the provider; returns the corrections made. A provider failure changes nothing. */
  reconcileUser(userId: string, why: 'sync' | 'reconcile'): Promise<string[]> {
    return this.reconcile(userId, why, 'Could not reach the payment provider to sync your subscription; nothing was changed. Please try again later.');
  }

  private async reconcile(userId: string, why: 'sync' | 'reconcile' | 'cancel', downMessage: string): Promise<string[]> {
    const remote = await this.provider.findSubscriptions(userId).catch((err: unknown) => {
      throw this.providerDown(err, downMessage);
    });
    const result = await runBillingCommand(this.db, { type: 'Reconcile', userId, provider: remote, plans: this.opts.plans, now: this.opts.clock() });
    const drift = result.newEvents.flatMap((e) => (e.type === 'SubscriptionReconciled' ? e.data.drift.map((d) => `${e.data.subscriptionId}: ${d}`) : []));
    for (const d of drift) this.opts.logger.info({ userId, why, drift: d }, `billing: ${why} corrected drift`);
    return drift;
  }

  /** `billing.entitlements.get`: the user's plan and what it allows. */
  async entitlements(userId: string): Promise<Entitlements> {
    const rows = await usableSubscriptions(this.db, userId, this.opts.clock());
    return entitlementsFor(
      userId,
      rows.map((r) => ({ code: r.code as PlanCode, endsAt: r.ends_at ? new Date(r.ends_at).toISOString() : null })),
      this.planIds,
    );
  }

  private async recordUnattributed(p: { transactionId: string; accountId: string | null; invoiceId: string | null; amount: string; currency: string; reason: string; now: Date }) {
    await this.db
      .transaction(async (tx) => {
        // Parsed with the catalog's schema before it is appended, as every recorder does.
        const event = {
          type: BillingEventTypes.PaymentUnattributed,
          data: billingEvents.PaymentUnattributed.parse({
            version: 1,
            paymentId: p.transactionId,
            accountId: p.accountId,
            invoiceId: p.invoiceId,
            amount: p.amount,
            currency: p.currency,
            reason: p.reason,
            at: p.now.toISOString(),
          }),
        };
        const res = await appendToStream(tx, `billing-unattributed-${p.transactionId}`, [{ id: paymentEventIds(p.transactionId)[0]!, ...event }], 'any');
        if (!res.alreadyApplied) {
          await projectBillingEvent(tx, event, res.nextExpectedVersion);
          this.opts.logger.warn({ transactionId: p.transactionId, accountId: p.accountId, amount: p.amount, currency: p.currency, reason: p.reason }, 'billing: payment could not be attributed; recorded for an operator');
        }
      })
      .catch((err: unknown) => {
        if (!(err instanceof EventIdConflictError)) throw err;
      });
  }

  private verifiedParams(input: unknown, kind: string): { raw: Buffer; params: Record<string, string>; nul: string[] } {
    const n: ProviderNotification = parseOrThrow(providerNotificationSchema, input);
    const raw = Buffer.from(n.body, 'base64');
    const covers = verifyCloudPaymentsSignature(raw, n, this.opts.apiSecret);
    if (!covers) {
      // Never the body: it may be forged, and it carries personal data.
      this.opts.logger.warn({ notification: kind, bytes: raw.length, contentHmac: !!n.contentHmac, xContentHmac: !!n.xContentHmac }, 'billing: provider notification with a missing or bad signature rejected');
      throw new ServiceError(ErrorCode.Unauthenticated, 'Invalid signature.');
    }
    const params = signedNotificationParams(raw, n.contentType, covers);
    if (params === 'ambiguous') {
      this.opts.logger.warn({ notification: kind, bytes: raw.length, signed: covers }, 'billing: provider notification rejected: its fields read otherwise than the decoded text its signature covers');
      throw new ServiceError(ErrorCode.Unauthenticated, 'Invalid signature.');
    }
    if (!params) {
      this.opts.logger.error({ notification: kind, bytes: raw.length, contentType: n.contentType }, 'billing: signed notification body is neither a form nor a JSON object');
      throw ServiceError.validation({ body: ['The notification body could not be read.'] });
    }
    // Postgres text cannot hold U+0000 (a value with one failed the insert: a 500, retried by the provider 100
    // times). No real notification has one; the values are kept readable for an operator, the field named.
    const nul: string[] = [];
    const clean: Record<string, string> = {};
    const entries = Object.entries(params);
    if (!entries.some(([k, v]) => k.includes('\u0000') || v.includes('\u0000'))) return { raw, params, nul };
    for (const [k, v] of entries) {
      const key = k.replaceAll('\u0000', '\ufffd');
      if (key !== k || v.includes('\u0000')) nul.push(key);
      if (!(key in clean)) clean[key] = v.replaceAll('\u0000', '\ufffd');
    }
    return { raw, params: clean, nul };
  }

  private providerDown(err: unknown, message: string): ServiceError {
    if (err instanceof ServiceError) return err;
    this.opts.logger.warn({ err: err instanceof ProviderError ? err.message : err }, 'billing: payment provider call failed');
    // `public`: the gateway shows this message instead of its generic 503 text (it says nothing was recorded).
    return new ServiceError(ErrorCode.Unavailable, message, undefined, { public: true });
  }

  private paidCodes(): string {
    return this.opts.plans.filter((p) => p.paid).map((p) => p.code).join(', ');
  }
}


