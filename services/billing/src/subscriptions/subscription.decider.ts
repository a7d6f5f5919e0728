import type { BillingEvent, PlanCode } from '@invest/contracts';
import { type Decider, ServiceError } from '@invest/platform';
import { addPeriod, type Plan } from '../plans/plan-catalog.js';

/**
 * One user's subscriptions and payments as an event-sourced stream (`billing-user-<userId>`): pure
 * decide/evolve over plain data. Every payment id is recorded at most once; the service gives the
 * payment's events deterministic ids (see paymentEventIds), so the event store enforces it too.
 */

export interface SubscriptionState {
  id: string;
  planCode: PlanCode;
  status: 'active' | 'cancelled';
  startsAt: string;
  endsAt: string | null;
  externalId: string | null;
  /** Order of the last change: "current" is the most recently updated subscription. */
  touched: number;
}

export interface BillingState {
  subscriptions: Record<string, SubscriptionState>;
  /** Recorded payments by provider TransactionId. */
  payments: Record<string, { uuid: string; subscriptionId: string }>;
  /** Payment ids that identify a recorded payment too: client uuids and InvoiceIds. */
  aliases: Record<string, string>;
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
}

export type ProviderSubscriptionStatus = 'Active' | 'PastDue' | 'Cancelled' | 'Rejected' | 'Expired';

export interface ProviderSubscription {
  id: string;
  status: ProviderSubscriptionStatus;
  /** ISO instant of the next charge, when the provider plans one. */
  nextTransactionAt: string | null;
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
      /** Id of the subscription a new period would create (deterministic, from the payment id). */
      newSubscriptionId: string;
      now: Date;
    }
  | { type: 'CancelByProvider'; userId: string; externalId: string; reason: 'provider_cancelled' | 'provider_rejected' | 'provider_expired'; now: Date }
  | { type: 'Reconcile'; userId: string; provider: ProviderSubscription[]; now: Date }
  | { type: 'RemoveOutdated'; userId: string; olderThan: Date; now: Date };

export const initialBillingState = (): BillingState => ({ subscriptions: {}, payments: {}, aliases: {}, changes: 0 });

/** The most recently updated subscription, or undefined. */
export function currentSubscription(state: BillingState): SubscriptionState | undefined {
  let best: SubscriptionState | undefined;
  for (const s of Object.values(state.subscriptions)) if (!best || s.touched > best.touched) best = s;
  return best;
}

/** Active and not yet ended (a subscription with no end never ends). */
export const isRunning = (s: SubscriptionState, now: Date) => s.endsAt === null || new Date(s.endsAt) > now;

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

function decide(command: BillingCommand, state: BillingState): BillingEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case 'RecordPayment': {
      const { payment, plan, userId, now } = command;
      if (isPaymentRecorded(state, { transactionId: payment.transactionId, ...(command.source === 'client' ? { uuid: command.uuid } : {}) })) return [];
      if (!plan.paid || !plan.period) throw new Error(`RecordPayment: plan ${plan.code} is not a paid plan`);
      const current = currentSubscription(state);
      const active = current && current.status === 'active' && isRunning(current, now) ? current : undefined;
      if (active && command.source === 'client') {
        throw ServiceError.conflict('You already have an active subscription; this payment was not applied. Contact support to have it refunded.', {
          subscription_id: active.id,
          ends_at: active.endsAt,
        });
      }
      const recorded = (subscriptionId: string): BillingEvent => ({
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
          at,
        },
      });
      if (active && active.endsAt !== null) {
        // A recurring charge (or another payment) while a period runs: the new period follows it.
        const endsAt = addPeriod(new Date(active.endsAt), plan.period).toISOString();
        return [
          recorded(active.id),
          {
            type: 'SubscriptionExtended',
            data: { version: 1, userId, subscriptionId: active.id, planCode: plan.code, endsAt, externalId: payment.externalId ?? active.externalId, at },
          },
        ];
      }
      // A cancelled subscription keeps its paid time: a new one starts when it ends.
      const startsAt = current && current.endsAt !== null && isRunning(current, now) ? new Date(current.endsAt) : now;
      return [
        recorded(command.newSubscriptionId),
        {
          type: 'SubscriptionStarted',
          data: {
            version: 1,
            userId,
            subscriptionId: command.newSubscriptionId,
            planCode: plan.code,
            startsAt: startsAt.toISOString(),
            endsAt: addPeriod(startsAt, plan.period).toISOString(),
            externalId: payment.externalId,
            at,
          },
        },
      ];
    }
    case 'CancelByProvider': {
      const sub = Object.values(state.subscriptions).find((s) => s.externalId === command.externalId);
      if (!sub || sub.status === 'cancelled') return [];
      return [{ type: 'SubscriptionCancelled', data: { version: 1, userId: command.userId, subscriptionId: sub.id, reason: command.reason, at } }];
    }
    case 'Reconcile': {
      const events: BillingEvent[] = [];
      for (const remote of command.provider) {
        const sub = Object.values(state.subscriptions).find((s) => s.externalId === remote.id);
        if (!sub) continue;
        const status = remote.status === 'Active' || remote.status === 'PastDue' ? 'active' : 'cancelled';
        // Paid time is never cut: only a later next charge moves the end date.
        const next = status === 'active' ? remote.nextTransactionAt : null;
        const endsAt = next && sub.endsAt !== null && new Date(next) > new Date(sub.endsAt) ? new Date(next).toISOString() : sub.endsAt;
        const drift: string[] = [];
        if (status !== sub.status) drift.push(`status ${sub.status} -> ${status}`);
        if (endsAt !== sub.endsAt) drift.push(`ends_at ${sub.endsAt} -> ${endsAt}`);
        if (drift.length) events.push({ type: 'SubscriptionReconciled', data: { version: 1, userId: command.userId, subscriptionId: sub.id, status, endsAt, drift, at } });
      }
      return events;
    }
    case 'RemoveOutdated':
      return Object.values(state.subscriptions)
        .filter((s) => s.endsAt !== null && new Date(s.endsAt) < command.olderThan)
        .sort((a, b) => a.touched - b.touched)
        .map((s) => ({ type: 'SubscriptionRemoved', data: { version: 1, userId: command.userId, subscriptionId: s.id, endedAt: s.endsAt, at } }));
  }
}

function evolve(state: BillingState, event: BillingEvent): BillingState {
  const changes = state.changes + 1;
  const touch = (id: string, patch: Partial<SubscriptionState>): BillingState => {
    const sub = state.subscriptions[id];
    if (!sub) return { ...state, changes };
    return { ...state, changes, subscriptions: { ...state.subscriptions, [id]: { ...sub, ...patch, touched: changes } } };
  };
  switch (event.type) {
    case 'PaymentRecorded': {
      const d = event.data;
      const aliases = { ...state.aliases, [d.uuid]: d.paymentId, ...(d.invoiceId ? { [d.invoiceId]: d.paymentId } : {}) };
      return { ...state, changes, aliases, payments: { ...state.payments, [d.paymentId]: { uuid: d.uuid, subscriptionId: d.subscriptionId } } };
    }
    case 'SubscriptionStarted': {
      const d = event.data;
      const sub: SubscriptionState = { id: d.subscriptionId, planCode: d.planCode, status: 'active', startsAt: d.startsAt, endsAt: d.endsAt, externalId: d.externalId, touched: changes };
      return { ...state, changes, subscriptions: { ...state.subscriptions, [sub.id]: sub } };
    }
    case 'SubscriptionExtended':
      return touch(event.data.subscriptionId, { status: 'active', endsAt: event.data.endsAt, planCode: event.data.planCode, externalId: event.data.externalId });
    case 'SubscriptionCancelled':
      return touch(event.data.subscriptionId, { status: 'cancelled' });
    case 'SubscriptionReconciled':
      return touch(event.data.subscriptionId, { status: event.data.status, endsAt: event.data.endsAt });
    case 'SubscriptionRemoved': {
      const { [event.data.subscriptionId]: _removed, ...rest } = state.subscriptions;
      return { ...state, changes, subscriptions: rest };
    }
    case 'PaymentUnattributed':
      return { ...state, changes };
  }
}

/** The billing decider: `handleCommand(tx, userStream(userId), command, billingDecider, …)`. */
export const billingDecider: Decider<BillingState, BillingCommand, BillingEvent> = {
  initialState: initialBillingState,
  evolve,
  decide,
};

/** The stream of one user's subscriptions and payments. */
export const userStream = (userId: string) => `billing-user-${userId}`;
