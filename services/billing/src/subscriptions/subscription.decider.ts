import type { BillingEvent, PlanCode } from '@invest/contracts';
import type { Decider } from '@invest/platform/event-store/command-handling';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { fromMinorUnits, sameAmount, toMinorUnits } from '../plans/money.js';
import { addPeriod, anchorDayOf, buysLessThanADay, paidUntil, type PeriodShare, type Plan } from '../plans/plan-catalog.js';

/**
 * One user's subscriptions and payments as an event-sourced stream (`billing-user-<userId>`): pure
 * decide/evolve over plain data. Every payment id is recorded at most once; the service gives the
 * payment's events deterministic ids (see paymentEventIds), so the event store enforces it too.
 */

export interface RecordedPayment {
  uuid: string;
  subscriptionId: string;
  amount: string;
  boughtMs: number;
  refundedMinor: bigint;
  /** A repeat purchase to refund in full (`repeatOf` of its PaymentRecorded; see `isRepeatPurchase`). */
  repeatOf: string | null;
}

export interface SubscriptionState {
  id: string;
  planCode: PlanCode;
  status: 'active' | 'cancelled' | 'past_due';
  startsAt: string;
  /** After a declined recurring charge: usable until then, past `endsAt` (GRACE_DAYS from the first failure). */
  graceUntil: string | null;
  /** Consecutive declined charges since its last payment. */
  failedCharges: number;
  endsAt: string | null;
  externalId: string | null;
  /** When its current run began: started, or renewed after a cancellation (see `providerSubscriptionOf`). */
  renewedAt: string;
  /** Provider subscriptions it was linked to before: never linked again by the account. */
  formerExternalIds: string[];
  /** Order of the last change: "current" is the most recently updated subscription. */
  touched: number;
}

export interface BillingState {
  subscriptions: Record<string, SubscriptionState>;
  /** Recorded payments by provider TransactionId: what each paid, the paid time it bought (ms) and how much of it was refunded. */
  payments: Record<string, RecordedPayment>;
  /** Declined charges recorded (Fail notifications), by TransactionId. */
  failures: Record<string, true>;
  /** Refund TransactionIds recorded, each with the payment it refunded. */
  refunds: Record<string, string>;
  /** Receipts recorded (Receipt notifications), by `<Type>:<TransactionId>`. */
  receipts: Record<string, true>;
  /** The payment just recorded, until the start or extension it bought follows it (to know how long it bought). */
  lastPaymentId: string | null;
  /** Payment ids that identify a recorded payment too: client uuids and InvoiceIds. */
  aliases: Record<string, string>;
  /** The last payment that bought paid time: when, its plan and subscription (a repeat purchase is measured from it). */
  lastPaid: { paymentId: string; at: string; planCode: PlanCode; subscriptionId: string } | null;
  changes: number;
}

/** A payment the provider confirmed (payments/find) or reported (a signed Pay notification). */
export interface ConfirmedPayment {
  transactionId: string;
  amount: string;
  currency: string;
  invoiceId: string | null;
  /** CloudPayments SubscriptionId (`sc_…`) of recurring charges: the subscription's external_id. */
  externalId: string | null;
  /** `CardLastFour`, when the provider said (the payment history shows it). */
  cardLastFour?: string | null;
}

export type ProviderSubscriptionStatus = 'Active' | 'PastDue' | 'Cancelled' | 'Rejected' | 'Expired';

export interface ProviderSubscription {
  id: string;
  status: ProviderSubscriptionStatus;
  /** What it charges and when it began, when the provider says it all (to tell it is ours before linking it by the account). */
  terms: ProviderSubscriptionTerms | null;
}

/** A provider subscription's charge: `Amount`, `Currency`, `Interval` × `Period`, and its first scheduled charge (`StartDate`). */
export interface ProviderSubscriptionTerms {
  amount: string;
  currency: string;
  interval: string;
  period: number;
  /** ISO instant. */
  startedAt: string;
}

export type BillingCommand =
  | {
      type: 'RecordPayment';
      /** `client`: POST /api/subscribe (409 while a subscription is active); `webhook`: Pay notification (extends it). */
      source: 'client' | 'webhook';
      userId: string;
      /** SubscriptionPayment.uuid: the client's payment id, or the TransactionId for the webhook. */
      uuid: string;
      payment: ConfirmedPayment;
      plan: Plan;
      /** The share of the plan's period the payment bought; null: its price, one whole period. */
      share: PeriodShare | null;
      /** Id of the subscription a new period would create (deterministic, from the payment id). */
      newSubscriptionId: string;
      now: Date;
    }
  | {
      type: 'CancelByProvider';
      userId: string;
      externalId: string;
      /** The provider subscription's terms, when the notification has them all (to link it; see `providerSubscriptionOf`). */
      terms: ProviderSubscriptionTerms | null;
      plans: readonly Plan[];
      reason: 'provider_cancelled' | 'provider_rejected' | 'provider_expired';
      now: Date;
    }
  /** `POST /api/subscription/cancel`, after the provider's subscription was cancelled (or none was found). */
  | { type: 'CancelByUser'; userId: string; now: Date }
  /** `POST /api/subscription/resume`, after a new provider subscription (`externalId`) was created to start at the end. */
  | { type: 'Resume'; userId: string; externalId: string; now: Date }
  /**
   * `POST /api/subscription/change-plan`, after the provider calls: to a yearly plan now (`charge`: the card charged
   * the yearly price less `credit`; the new provider subscription `externalId` charges from a year on), or to a
   * monthly plan at the period's end (`charge` null; `externalId` charges the monthly price from `ends_at` on).
   */
  | {
      type: 'ChangePlan';
      userId: string;
      to: Plan;
      externalId: string;
      charge: { transactionId: string; amount: string; currency: string; invoiceId: string; cardLastFour: string | null } | null;
      credit: string | null;
      now: Date;
    }
  /** A Refund notification: `amount` of payment `paymentId` returned by refund `refundId`. */
  | { type: 'RecordRefund'; userId: string; paymentId: string; refundId: string; amount: string; now: Date }
  /** A Fail notification: the provider declined charge `paymentId` (of provider subscription `externalId`, if recurring). */
  | {
      type: 'RecordFailedCharge';
      userId: string;
      paymentId: string;
      externalId: string | null;
      amount: string;
      currency: string;
      planCode: PlanCode | null;
      reason: string | null;
      cardLastFour: string | null;
      plans: readonly Plan[];
      now: Date;
    }
  /** A Receipt notification: the fiscal receipt (`url`) of transaction `transactionId`, of type `receiptType` (`Income`, `IncomeReturn`). */
  | { type: 'RecordReceipt'; userId: string; transactionId: string; receiptType: string; url: string; documentNumber: string | null; now: Date }
  | { type: 'Reconcile'; userId: string; provider: ProviderSubscription[]; plans: readonly Plan[]; now: Date }
  | { type: 'RemoveOutdated'; userId: string; olderThan: Date; now: Date };

export const initialBillingState = (): BillingState => ({ subscriptions: {}, payments: {}, failures: {}, refunds: {}, receipts: {}, lastPaymentId: null, aliases: {}, lastPaid: null, changes: 0 });

/** The most recently updated subscription, or undefined. */
export function currentSubscription(state: BillingState): SubscriptionState | undefined {
  let best: SubscriptionState | undefined;
  for (const s of Object.values(state.subscriptions)) if (!best || s.touched > best.touched) best = s;
  return best;
}

/** Not yet ended (a subscription with no end never ends). */
export const isRunning = (s: Pick<SubscriptionState, 'endsAt'>, now: Date) => s.endsAt === null || new Date(s.endsAt) > now;

/** Days of access kept after the first declined recurring charge while the provider tries again (README). */
export const GRACE_DAYS = 3;
/** Charges the provider tries before it gives up (`Rejected` after three consecutive failures). */
export const CHARGE_ATTEMPTS = 3;

/** Running, or in its grace period after a declined charge. */
export const isUsable = (s: Pick<SubscriptionState, 'endsAt' | 'graceUntil'>, now: Date) => isRunning(s, now) || (s.graceUntil !== null && new Date(s.graceUntil) > now);

/** Active and not yet ended: what makes `POST /api/subscribe` a 409 (spec: Subscription state table). */
export const isActive = (s: Pick<SubscriptionState, 'status' | 'endsAt'>, now: Date) => s.status === 'active' && isRunning(s, now);

/**
 * The 409 of `POST /api/subscribe` while a subscription is active. The client's payment changes nothing here;
 * the provider's Pay notification of it extends the subscription (the webhook path), so nothing is lost.
 */
export function activeSubscriptionConflict(active: Pick<SubscriptionState, 'id' | 'endsAt'>): ServiceError {
  return ServiceError.conflict(
    `You already have an active subscription${active.endsAt ? ` until ${active.endsAt}` : ''}; nothing was changed. A payment already made extends it once the payment provider reports it.`,
    { subscription_id: active.id, ends_at: active.endsAt },
  );
}

/**
 * `POST /api/subscription/checkout` while a paid plan is usable (running, cancelled but paid for, or in its grace
 * period): one purchase at a time; a change of plan has its own endpoint.
 */
export function checkoutConflict(state: BillingState, now: Date): ServiceError | undefined {
  const current = currentSubscription(state);
  if (!current || current.endsAt === null || !isUsable(current, now)) return undefined;
  const until = current.graceUntil && current.graceUntil > current.endsAt ? current.graceUntil : current.endsAt;
  return ServiceError.conflict(`You already have an active subscription until ${until}; to switch plans, change the plan instead of buying it again.`, { subscription_id: current.id, ends_at: current.endsAt });
}

/**
 * What `POST /api/subscription/change-plan` would change: the current subscription when it is active, paid, not
 * complimentary and on another paid plan, or the error to answer. A cancelled one is resumed first; a past due
 * one settles its charge first.
 */
export function planChangeable(state: BillingState, to: Plan, now: Date): SubscriptionState | ServiceError {
  const current = currentSubscription(state);
  if (!to.paid || !to.period) return ServiceError.validation({ plan: ['Choose a paid plan to change to.'] });
  if (!current || current.endsAt === null || !isActive(current, now)) return ServiceError.conflict('You have no active paid subscription to change; subscribe to a plan instead.');
  if (current.planCode === to.code) return ServiceError.conflict(`Your subscription is already on the ${to.code} plan.`);
  return current;
}

/**
 * The credit of a monthly plan's unused time against a yearly one (README, "Change of plan"), in minor units:
 * floor(monthly price × (ends_at − now) / length of the calendar month that ends at ends_at). Exact in integers;
 * never more than the yearly price.
 */
export function planChangeCreditMinor(endsAt: Date, now: Date, monthlyPriceMinor: bigint, yearlyPriceMinor: bigint): bigint {
  const start = monthBefore(endsAt);
  const unused = BigInt(Math.max(0, endsAt.getTime() - now.getTime()));
  const month = BigInt(endsAt.getTime() - start.getTime());
  const credit = (monthlyPriceMinor * unused) / month;
  return credit < yearlyPriceMinor ? credit : yearlyPriceMinor;
}

/** The same day of the month before (the last day when that month is shorter), as `addPeriod` goes forward. */
function monthBefore(d: Date): Date {
  const r = new Date(d.getTime());
  const day = r.getUTCDate();
  r.setUTCDate(1);
  r.setUTCMonth(r.getUTCMonth() - 1);
  const lastDay = new Date(Date.UTC(r.getUTCFullYear(), r.getUTCMonth() + 1, 0)).getUTCDate();
  r.setUTCDate(Math.min(day, lastDay));
  return r;
}

/**
 * Whether a payment is recorded: its TransactionId, or (the client path only: `uuid`) the client's uuid, an
 * alias of the payment whose InvoiceId it is, whichever path recorded it. A notification's InvoiceId decides
 * nothing, nor does a TransactionId that equals some InvoiceId (the browser sets those): the client path
 * learns the TransactionId from the provider, so both paths of one payment share it, and a new TransactionId
 * under a known InvoiceId is another charge (a second payment of one checkout) to record.
 */
export function isPaymentRecorded(state: BillingState, ids: { transactionId: string; uuid?: string }): boolean {
  return ids.transactionId in state.payments || (ids.uuid !== undefined && ids.uuid in state.aliases);
}

const DAY_MS = 86_400_000;

/** A second payment of the running plan this soon after the last one is a repeat purchase (README, "One purchase at a time"). */
export const REPEAT_PURCHASE_MINUTES = 10;

/**
 * Whether a webhook payment repeats the purchase that runs (a second tab opened before buying, an old invoice
 * paid): the current subscription is active, the payment is its plan's price and no recurring charge (no
 * `SubscriptionId`), within `REPEAT_PURCHASE_MINUTES` of the payment that last bought its time. Anything else keeps
 * the rules of a payment while one runs (it extends it).
 */
export function isRepeatPurchase(state: BillingState, c: { payment: ConfirmedPayment; plan: Plan; share: PeriodShare | null; now: Date }): boolean {
  const current = currentSubscription(state);
  const last = state.lastPaid;
  if (!current || !isActive(current, c.now) || !last || last.subscriptionId !== current.id) return false;
  if (c.payment.externalId !== null || c.share !== null || c.plan.code !== current.planCode || last.planCode !== c.plan.code) return false;
  const since = c.now.getTime() - new Date(last.at).getTime();
  return since >= 0 && since <= REPEAT_PURCHASE_MINUTES * 60_000;
}

/** Repeat purchases recorded and not yet refunded: billing asks the provider to refund each (again, on a repeated notification). */
export const repeatPurchaseToRefund = (state: BillingState, paymentId: string): RecordedPayment | undefined => {
  const p = state.payments[paymentId];
  return p && p.repeatOf !== null && p.refundedMinor === 0n ? p : undefined;
};

/**
 * What `POST /api/subscription/cancel` would cancel: the current subscription when it is paid and running,
 * `already` when it is cancelled and still runs (a repeat changes nothing), or the error to answer.
 */
export function cancellable(state: BillingState, now: Date): SubscriptionState | 'already' | ServiceError {
  const current = currentSubscription(state);
  if (!current || !isUsable(current, now)) return ServiceError.validation({ subscription: ['You have no running paid subscription to cancel.'] });
  if (current.endsAt === null) return ServiceError.validation({ subscription: ['A complimentary plan has no recurring charge to cancel.'] });
  return current.status === 'cancelled' ? 'already' : current;
}

/**
 * What `POST /api/subscription/resume` would resume: the current subscription when it is cancelled and still
 * runs, `already` when it is active (a repeat changes nothing), or the error to answer.
 */
export function resumable(state: BillingState, now: Date): SubscriptionState | 'already' | ServiceError {
  const current = currentSubscription(state);
  if (!current) return ServiceError.validation({ subscription: ['You have no subscription to resume.'] });
  // Active, or past due (its recurring charge still runs; the provider is trying again): nothing to resume.
  if (current.status !== 'cancelled' && isUsable(current, now)) return 'already';
  if (!isRunning(current, now)) return ServiceError.conflict(`Your subscription ended on ${current.endsAt}; it cannot be resumed. Subscribe again to get a paid plan.`, { ends_at: current.endsAt });
  return current.status !== 'cancelled' ? 'already' : current;
}

/**
 * Whether a provider subscription found by the account is the one our subscription's run began with: it
 * charges our plan's price, in its currency, every period of it, and its first scheduled charge is one period
 * after the run began (±1 day). The account (`AccountId`) is set in the browser, so anyone can make a provider
 * subscription for someone else's; one that does not fit is never linked (it could cancel theirs), nor one
 * linked before (a renewal's run is not the cancelled one's).
 */
function fitsRun(sub: SubscriptionState, terms: ProviderSubscriptionTerms | null, plans: readonly Plan[]): boolean {
  const plan = plans.find((p) => p.code === sub.planCode);
  if (!terms || !plan?.price || !plan.period) return false;
  const months = terms.interval === 'Month' ? terms.period : terms.interval === 'Year' ? terms.period * 12 : 0;
  if (months !== (plan.period === 'month' ? 1 : 12) || !sameAmount(terms.amount, plan.price) || terms.currency !== plan.currency) return false;
  return Math.abs(new Date(terms.startedAt).getTime() - addPeriod(new Date(sub.renewedAt), plan.period).getTime()) <= DAY_MS;
}

/**
 * Our subscription a provider subscription is, and whether it is linked to it now: the one whose
 * `external_id` it is, or else the user's current paid subscription, if that has no link yet and the provider's
 * fits its run (`fitsRun`). The first payment's Pay has no SubscriptionId: the provider creates its subscription
 * with that payment and names it only with the next charge, so until then a cancellation or a sync finds it
 * only by the account.
 */
function providerSubscriptionOf(state: BillingState, remote: { id: string; terms: ProviderSubscriptionTerms | null }, plans: readonly Plan[]): { sub: SubscriptionState; links: boolean } | undefined {
  const subs = Object.values(state.subscriptions);
  const linked = subs.find((s) => s.externalId === remote.id);
  if (linked) return { sub: linked, links: false };
  if (subs.some((s) => s.formerExternalIds.includes(remote.id))) return undefined;
  const current = currentSubscription(state);
  if (!current || current.externalId !== null || current.endsAt === null) return undefined;
  return fitsRun(current, remote.terms, plans) ? { sub: current, links: true } : undefined;
}

function decide(command: BillingCommand, state: BillingState): BillingEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case 'RecordPayment': {
      const { payment, plan, userId, now } = command;
      if (isPaymentRecorded(state, { transactionId: payment.transactionId, ...(command.source === 'client' ? { uuid: command.uuid } : {}) })) return [];
      if (!plan.paid || !plan.period) throw new Error(`RecordPayment: plan ${plan.code} is not a paid plan`);
      const current = currentSubscription(state);
      const active = current && isActive(current, now) ? current : undefined;
      if (active && command.source === 'client') throw activeSubscriptionConflict(active);
      const recorded = (subscriptionId: string, grantsAccess = true, repeatOf?: string): BillingEvent => ({
        type: 'PaymentRecorded',
        data: {
          version: 1,
          userId,
          paymentId: payment.transactionId,
          uuid: command.uuid,
          invoiceId: payment.invoiceId,
          amount: payment.amount,
          currency: payment.currency,
          planCode: plan.code,
          source: command.source,
          subscriptionId,
          grantsAccess,
          ...(payment.cardLastFour ? { cardLastFour: payment.cardLastFour } : {}),
          ...(repeatOf ? { repeatOf } : {}),
          at,
        },
      });
      // The same purchase again (another tab): recorded, then refunded by the service; it extends nothing.
      if (command.source === 'webhook' && isRepeatPurchase(state, command)) return [recorded(active!.id, false, state.lastPaid!.paymentId)];
      // In its grace period after a declined charge it still runs: a payment (the provider's retry) extends it from
      // its paid end, as if the charge had gone through on time.
      const running = current && current.endsAt !== null && isUsable(current, now) ? current : undefined;
      // Worth less than one day of its plan (a token 0.01): money recorded and shown, but no paid access. It
      // starts, extends and renews nothing, whatever runs now; it names the subscription it would have started.
      if (buysLessThanADay(running ? new Date(running.endsAt!) : now, plan.period, command.share)) return [recorded(command.newSubscriptionId, false)];
      if (running) {
        // A recurring charge (or another payment) while a period runs: the new period follows it. A cancelled
        // one that still runs is renewed: active again, one subscription (a second one queued behind it was
        // "current" but not yet usable, and shared its provider subscription). A renewal's provider subscription
        // is the payment's, not the cancelled one's.
        const endsAt = paidUntil(new Date(running.endsAt!), plan.period, command.share, anchorDayOf(new Date(running.startsAt), new Date(running.endsAt!))).toISOString();
        const externalId = running.status !== 'cancelled' ? (payment.externalId ?? running.externalId) : payment.externalId;
        return [recorded(running.id), { type: 'SubscriptionExtended', data: { version: 1, userId, subscriptionId: running.id, planCode: plan.code, endsAt, externalId, at } }];
      }
      return [
        recorded(command.newSubscriptionId),
        {
          type: 'SubscriptionStarted',
          data: {
            version: 1,
            userId,
            subscriptionId: command.newSubscriptionId,
            planCode: plan.code,
            startsAt: at,
            endsAt: paidUntil(now, plan.period, command.share).toISOString(),
            externalId: payment.externalId,
            at,
          },
        },
      ];
    }
    case 'CancelByProvider': {
      const found = providerSubscriptionOf(state, { id: command.externalId, terms: command.terms }, command.plans);
      if (!found || found.sub.status === 'cancelled') return [];
      const link = found.links ? { externalId: command.externalId } : {};
      return [{ type: 'SubscriptionCancelled', data: { version: 1, userId: command.userId, subscriptionId: found.sub.id, reason: command.reason, ...link, at } }];
    }
    case 'ChangePlan': {
      const { to, charge, userId } = command;
      // A repeat (the same charge, or the same new provider subscription) changes nothing.
      if (charge && charge.transactionId in state.payments) return [];
      const current = currentSubscription(state);
      if (!charge && current?.externalId === command.externalId) return [];
      const sub = planChangeable(state, to, command.now);
      if (sub instanceof ServiceError) throw sub;
      if (!charge) return [{ type: 'SubscriptionResumed', data: { version: 1, userId, subscriptionId: sub.id, externalId: command.externalId, nextPlanCode: to.code, at } }];
      return [
        {
          type: 'PaymentRecorded',
          data: {
            version: 1,
            userId,
            paymentId: charge.transactionId,
            uuid: charge.transactionId,
            invoiceId: charge.invoiceId,
            amount: charge.amount,
            currency: charge.currency,
            planCode: to.code,
            source: 'client',
            subscriptionId: sub.id,
            grantsAccess: true,
            ...(charge.cardLastFour ? { cardLastFour: charge.cardLastFour } : {}),
            at,
          },
        },
        {
          type: 'SubscriptionExtended',
          data: {
            version: 1,
            userId,
            subscriptionId: sub.id,
            planCode: to.code,
            endsAt: addPeriod(command.now, to.period!).toISOString(),
            externalId: command.externalId,
            planChange: { fromPlanCode: sub.planCode, credit: command.credit ?? '0.00' },
            at,
          },
        },
      ];
    }
    case 'CancelByUser': {
      const sub = cancellable(state, command.now);
      if (sub instanceof ServiceError) throw sub;
      if (sub === 'already') return [];
      return [{ type: 'SubscriptionCancelled', data: { version: 1, userId: command.userId, subscriptionId: sub.id, reason: 'user_cancelled', at } }];
    }
    case 'Resume': {
      const sub = resumable(state, command.now);
      if (sub instanceof ServiceError) throw sub;
      if (sub === 'already') return [];
      return [{ type: 'SubscriptionResumed', data: { version: 1, userId: command.userId, subscriptionId: sub.id, externalId: command.externalId, at } }];
    }
    case 'RecordFailedCharge': {
      if (command.paymentId in state.failures || command.paymentId in state.payments) return [];
      const sub = failedChargeSubscription(state, command);
      const attempt = sub ? sub.failedCharges + 1 : 0;
      // The grace period runs from the first failure (or the paid end, if the charge came early), not from each retry.
      const graceUntil = sub ? (sub.graceUntil ?? new Date(Math.max(new Date(sub.endsAt!).getTime(), command.now.getTime()) + GRACE_DAYS * DAY_MS).toISOString()) : null;
      return [
        {
          type: 'ChargeFailed',
          data: {
            version: 1,
            userId: command.userId,
            paymentId: command.paymentId,
            amount: command.amount,
            currency: command.currency,
            planCode: sub ? sub.planCode : command.planCode,
            subscriptionId: sub ? sub.id : null,
            reason: command.reason,
            ...(command.cardLastFour ? { cardLastFour: command.cardLastFour } : {}),
            attempt,
            attemptsLeft: sub ? Math.max(0, CHARGE_ATTEMPTS - attempt) : 0,
            graceUntil,
            at,
          },
        },
      ];
    }
    case 'RecordRefund': {
      if (command.refundId in state.refunds) return [];
      const payment = state.payments[command.paymentId];
      if (!payment) throw ServiceError.validation({ PaymentTransactionId: ['No payment with this PaymentTransactionId is recorded for the account.'] });
      // Never more than was paid and not yet refunded; the paid time goes back in the same proportion.
      const paid = toMinorUnits(payment.amount) ?? 0n;
      const asked = toMinorUnits(command.amount) ?? 0n;
      const left = paid - payment.refundedMinor;
      const refund = asked < left ? asked : left > 0n ? left : 0n;
      const takeBack = paid > 0n ? Number((BigInt(payment.boughtMs) * refund) / paid) : 0;
      const sub = state.subscriptions[payment.subscriptionId];
      let endsAt: string | null = null;
      if (sub?.endsAt) {
        const end = new Date(sub.endsAt).getTime() - takeBack;
        endsAt = new Date(Math.max(end, new Date(sub.startsAt).getTime())).toISOString();
      }
      return [
        {
          type: 'PaymentRefunded',
          data: { version: 1, userId: command.userId, paymentId: command.paymentId, refundId: command.refundId, amount: fromMinorUnits(refund), subscriptionId: sub ? sub.id : null, endsAt, at },
        },
      ];
    }
    case 'RecordReceipt': {
      if (receiptKey(command) in state.receipts) return [];
      // A payment's receipt, or a refund's (its TransactionId is the refund's; the history row is the payment's).
      const paymentId = command.transactionId in state.payments ? command.transactionId : state.refunds[command.transactionId];
      if (paymentId === undefined) throw ServiceError.validation({ TransactionId: ['No payment or refund with this TransactionId is recorded for the account.'] });
      const { userId, transactionId, receiptType, url, documentNumber } = command;
      return [{ type: 'ReceiptIssued', data: { version: 1, userId, paymentId, transactionId, receiptType, url, documentNumber, at } }];
    }
    case 'Reconcile': {
      const events: BillingEvent[] = [];
      let linking = false;
      for (const remote of command.provider) {
        const found = providerSubscriptionOf(state, remote, command.plans);
        // One link a decision (two provider subscriptions that both fit: the first).
        if (!found || (found.links && linking)) continue;
        linking ||= found.links;
        const { sub, links } = found;
        const status = remote.status === 'Active' || remote.status === 'PastDue' ? 'active' : 'cancelled';
        // Only the status: paid time comes from recorded payments alone (the provider's next charge date is no
        // payment, and the widget sets a subscription's amount and interval in the browser).
        const endsAt = sub.endsAt;
        const drift: string[] = [];
        if (links) drift.push(`external_id null -> ${remote.id}`);
        // Past due is active at the provider too (PastDue, or Active between its tries).
        const ours = sub.status === 'past_due' ? 'active' : sub.status;
        if (status !== ours) drift.push(`status ${sub.status} -> ${status}`);
        const link = links ? { externalId: remote.id } : {};
        if (drift.length) events.push({ type: 'SubscriptionReconciled', data: { version: 1, userId: command.userId, subscriptionId: sub.id, status, endsAt, drift, ...link, at } });
      }
      return events;
    }
    case 'RemoveOutdated':
      return Object.values(state.subscriptions)
        .filter((s) => s.endsAt !== null && new Date(s.endsAt) < command.olderThan && !(s.graceUntil !== null && new Date(s.graceUntil) >= command.olderThan))
        .sort((a, b) => a.touched - b.touched)
        .map((s) => ({ type: 'SubscriptionRemoved', data: { version: 1, userId: command.userId, subscriptionId: s.id, endedAt: s.endsAt, at } }));
  }
}

function evolve(state: BillingState, event: BillingEvent): BillingState {
  const changes = state.changes + 1;
  const touchIn = (from: BillingState, id: string, patch: Partial<SubscriptionState>): BillingState => {
    const sub = from.subscriptions[id];
    if (!sub) return { ...from, changes };
    const unlinked = patch.externalId !== undefined && sub.externalId !== null && patch.externalId !== sub.externalId;
    const formerExternalIds = unlinked ? [...sub.formerExternalIds, sub.externalId!] : sub.formerExternalIds;
    return { ...from, changes, subscriptions: { ...from.subscriptions, [id]: { ...sub, ...patch, formerExternalIds, touched: changes } } };
  };
  const touch = (id: string, patch: Partial<SubscriptionState>): BillingState => touchIn(state, id, patch);
  switch (event.type) {
    case 'PaymentRecorded': {
      const d = event.data;
      const aliases = { ...state.aliases, [d.uuid]: d.paymentId, ...(d.invoiceId ? { [d.invoiceId]: d.paymentId } : {}) };
      const payment: RecordedPayment = { uuid: d.uuid, subscriptionId: d.subscriptionId, amount: d.amount, boughtMs: 0, refundedMinor: 0n, repeatOf: d.repeatOf ?? null };
      const lastPaid = d.grantsAccess === false ? state.lastPaid : { paymentId: d.paymentId, at: d.at, planCode: d.planCode, subscriptionId: d.subscriptionId };
      return { ...state, changes, aliases, lastPaid, lastPaymentId: d.paymentId, payments: { ...state.payments, [d.paymentId]: payment } };
    }
    case 'SubscriptionStarted': {
      const d = event.data;
      const sub: SubscriptionState = {
        id: d.subscriptionId,
        planCode: d.planCode,
        status: 'active',
        startsAt: d.startsAt,
        endsAt: d.endsAt,
        graceUntil: null,
        failedCharges: 0,
        externalId: d.externalId,
        renewedAt: d.at,
        formerExternalIds: [],
        touched: changes,
      };
      const bought = d.endsAt ? new Date(d.endsAt).getTime() - new Date(d.startsAt).getTime() : 0;
      return { ...boughtBy(state, d.subscriptionId, bought), changes, subscriptions: { ...state.subscriptions, [sub.id]: sub } };
    }
    case 'SubscriptionExtended': {
      const d = event.data;
      const before = state.subscriptions[d.subscriptionId];
      const renewed = before?.status === 'cancelled' ? { renewedAt: d.at } : {};
      const bought = before?.endsAt ? new Date(d.endsAt).getTime() - new Date(before.endsAt).getTime() : 0;
      return touchIn(boughtBy(state, d.subscriptionId, bought), d.subscriptionId, { status: 'active', endsAt: d.endsAt, graceUntil: null, failedCharges: 0, planCode: d.planCode, externalId: d.externalId, ...renewed });
    }
    case 'SubscriptionCancelled':
      return touch(event.data.subscriptionId, { status: 'cancelled', ...(event.data.externalId ? { externalId: event.data.externalId } : {}) });
    case 'ChargeFailed': {
      const d = event.data;
      const next = { ...state, failures: { ...state.failures, [d.paymentId]: true as const } };
      return d.subscriptionId ? touchIn(next, d.subscriptionId, { status: 'past_due', failedCharges: d.attempt, graceUntil: d.graceUntil }) : { ...next, changes };
    }
    case 'PaymentRefunded': {
      const d = event.data;
      const payment = state.payments[d.paymentId];
      const payments = payment ? { ...state.payments, [d.paymentId]: { ...payment, refundedMinor: payment.refundedMinor + (toMinorUnits(d.amount) ?? 0n) } } : state.payments;
      const next = { ...state, payments, refunds: { ...state.refunds, [d.refundId]: d.paymentId } };
      return d.subscriptionId && d.endsAt ? touchIn(next, d.subscriptionId, { endsAt: d.endsAt }) : { ...next, changes };
    }
    case 'SubscriptionResumed':
      return touch(event.data.subscriptionId, { status: 'active', externalId: event.data.externalId });
    case 'SubscriptionReconciled':
      return touch(event.data.subscriptionId, { status: event.data.status, endsAt: event.data.endsAt, ...(event.data.externalId ? { externalId: event.data.externalId } : {}) });
    case 'SubscriptionRemoved': {
      const { [event.data.subscriptionId]: _removed, ...rest } = state.subscriptions;
      return { ...state, changes, subscriptions: rest };
    }
    case 'ReceiptIssued':
      return { ...state, changes, receipts: { ...state.receipts, [receiptKey(event.data)]: true } };
    case 'PaymentUnattributed':
      return { ...state, changes };
  }
}

/** One receipt per transaction and type: a payment's `Income` and a refund's `IncomeReturn` are two. */
const receiptKey = (r: { receiptType: string; transactionId: string }) => `${r.receiptType}:${r.transactionId}`;

/**
 * The subscription a declined charge was for: the one linked to its provider subscription, or else the current
 * paid one not linked yet (the first recurring charge names a provider subscription the first Pay did not) when
 * the charge is its plan's price. A cancelled one is charged no more: such a failure is only listed.
 */
function failedChargeSubscription(state: BillingState, c: Extract<BillingCommand, { type: 'RecordFailedCharge' }>): SubscriptionState | undefined {
  if (!c.externalId) return undefined;
  const subs = Object.values(state.subscriptions);
  let sub = subs.find((s) => s.externalId === c.externalId);
  if (!sub && !subs.some((s) => s.formerExternalIds.includes(c.externalId!))) {
    const current = currentSubscription(state);
    const plan = c.plans.find((p) => p.code === current?.planCode);
    if (current && current.externalId === null && plan?.price && sameAmount(c.amount, plan.price) && c.currency === plan.currency) sub = current;
  }
  return sub && sub.status !== 'cancelled' && sub.endsAt !== null ? sub : undefined;
}

/**
 * The paid time the payment just recorded bought (its start or extension follows it at once), kept with it so a
 * refund takes back that much.
 */
function boughtBy(state: BillingState, subscriptionId: string, ms: number): BillingState {
  const id = state.lastPaymentId;
  const payment = id ? state.payments[id] : undefined;
  if (!id || !payment || payment.subscriptionId !== subscriptionId) return state;
  return { ...state, lastPaymentId: null, payments: { ...state.payments, [id]: { ...payment, boughtMs: Math.max(0, ms) } } };
}

/** The billing decider: `handleCommand(tx, userStream(userId), command, billingDecider, …)`. */
export const billingDecider: Decider<BillingState, BillingCommand, BillingEvent> = {
  initialState: initialBillingState,
  evolve,
  decide,
};

/** The stream of one user's subscriptions and payments. */
export const userStream = (userId: string) => `billing-user-${userId}`;
