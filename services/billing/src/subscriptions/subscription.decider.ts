import type { BillingEvent, PlanCode } from '@invest/contracts';
import { type Decider, ServiceError } from '@invest/platform';
import { paidUntil, type PeriodShare, type Plan } from '../plans/plan-catalog.js';

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
  /**
   * When its current run began: started, or renewed after a cancellation. A provider subscription that
   * started before it is not its (see `providerSubscriptionOf`).
   */
  renewedAt: string;
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
  /** ISO instant of its first scheduled charge (`StartDate`), when known. */
  startedAt: string | null;
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
      /** The provider subscription's `StartDate`, when the notification has one (to link it; see `providerSubscriptionOf`). */
      startedAt: string | null;
      reason: 'provider_cancelled' | 'provider_rejected' | 'provider_expired';
      now: Date;
    }
  | { type: 'Reconcile'; userId: string; provider: ProviderSubscription[]; now: Date }
  | { type: 'RemoveOutdated'; userId: string; olderThan: Date; now: Date };

export const initialBillingState = (): BillingState => ({ subscriptions: {}, payments: {}, aliases: {}, changes: 0 });

/** The most recently updated subscription, or undefined. */
export function currentSubscription(state: BillingState): SubscriptionState | undefined {
  let best: SubscriptionState | undefined;
  for (const s of Object.values(state.subscriptions)) if (!best || s.touched > best.touched) best = s;
  return best;
}

/** Not yet ended (a subscription with no end never ends). */
export const isRunning = (s: Pick<SubscriptionState, 'endsAt'>, now: Date) => s.endsAt === null || new Date(s.endsAt) > now;

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
 * Whether a payment is recorded: its TransactionId, or (the client path only: `uuid`) the client's uuid, an
 * alias of the payment whose InvoiceId it is, whichever path recorded it. A notification's InvoiceId decides
 * nothing, nor does a TransactionId that equals some InvoiceId (the browser sets those): the client path
 * learns the TransactionId from the provider, so both paths of one payment share it, and a new TransactionId
 * under a known InvoiceId is another charge (a second payment of one checkout) to record.
 */
export function isPaymentRecorded(state: BillingState, ids: { transactionId: string; uuid?: string }): boolean {
  return ids.transactionId in state.payments || (ids.uuid !== undefined && ids.uuid in state.aliases);
}

/**
 * Our subscription a provider subscription is, and whether it is linked to it now: the one whose
 * `external_id` it is, or else (`linkable`: it is linked to none) the user's current paid subscription, if that
 * has no link yet and the provider's subscription started after it was created. The first payment's Pay has
 * no SubscriptionId: the provider creates its subscription with that payment and names it only with the
 * next charge, so until then a cancellation or a sync finds it only by the account.
 */
function providerSubscriptionOf(state: BillingState, remote: { id: string; startedAt: string | null }, linkable: boolean): { sub: SubscriptionState; links: boolean } | undefined {
  const linked = Object.values(state.subscriptions).find((s) => s.externalId === remote.id);
  if (linked) return { sub: linked, links: false };
  const current = currentSubscription(state);
  if (!linkable || !current || current.externalId !== null || current.endsAt === null || remote.startedAt === null) return undefined;
  return new Date(remote.startedAt) >= new Date(current.renewedAt) ? { sub: current, links: true } : undefined;
}

/** Of provider subscriptions linked to none of ours, the one started last: at most one links per decision. */
function latestUnlinked(state: BillingState, remotes: readonly ProviderSubscription[]): ProviderSubscription | undefined {
  const ours = new Set(Object.values(state.subscriptions).map((s) => s.externalId));
  let latest: ProviderSubscription | undefined;
  for (const r of remotes) {
    if (ours.has(r.id) || r.startedAt === null) continue;
    if (!latest || new Date(r.startedAt) > new Date(latest.startedAt!)) latest = r;
  }
  return latest;
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
      const running = current && current.endsAt !== null && isRunning(current, now) ? current : undefined;
      if (running) {
        // A recurring charge (or another payment) while a period runs: the new period follows it. A cancelled
        // one that still runs is renewed: active again, one subscription (a second one queued behind it was
        // "current" but not yet usable, and shared its provider subscription). A renewal's provider subscription
        // is the payment's, not the cancelled one's.
        const endsAt = paidUntil(new Date(running.endsAt!), plan.period, command.share).toISOString();
        const externalId = running.status === 'active' ? (payment.externalId ?? running.externalId) : payment.externalId;
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
      const found = providerSubscriptionOf(state, { id: command.externalId, startedAt: command.startedAt }, true);
      if (!found || found.sub.status === 'cancelled') return [];
      const link = found.links ? { externalId: command.externalId } : {};
      return [{ type: 'SubscriptionCancelled', data: { version: 1, userId: command.userId, subscriptionId: found.sub.id, reason: command.reason, ...link, at } }];
    }
    case 'Reconcile': {
      const events: BillingEvent[] = [];
      const unlinked = latestUnlinked(state, command.provider);
      for (const remote of command.provider) {
        const found = providerSubscriptionOf(state, remote, remote === unlinked);
        if (!found) continue;
        const { sub, links } = found;
        const status = remote.status === 'Active' || remote.status === 'PastDue' ? 'active' : 'cancelled';
        // Paid time is never cut: only a later next charge moves the end date.
        const next = status === 'active' ? remote.nextTransactionAt : null;
        const endsAt = next && sub.endsAt !== null && new Date(next) > new Date(sub.endsAt) ? new Date(next).toISOString() : sub.endsAt;
        const drift: string[] = [];
        if (links) drift.push(`external_id null -> ${remote.id}`);
        if (status !== sub.status) drift.push(`status ${sub.status} -> ${status}`);
        if (endsAt !== sub.endsAt) drift.push(`ends_at ${sub.endsAt} -> ${endsAt}`);
        const link = links ? { externalId: remote.id } : {};
        if (drift.length) events.push({ type: 'SubscriptionReconciled', data: { version: 1, userId: command.userId, subscriptionId: sub.id, status, endsAt, drift, ...link, at } });
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
      const sub: SubscriptionState = { id: d.subscriptionId, planCode: d.planCode, status: 'active', startsAt: d.startsAt, endsAt: d.endsAt, externalId: d.externalId, renewedAt: d.at, touched: changes };
      return { ...state, changes, subscriptions: { ...state.subscriptions, [sub.id]: sub } };
    }
    case 'SubscriptionExtended': {
      const d = event.data;
      const renewed = state.subscriptions[d.subscriptionId]?.status === 'cancelled' ? { renewedAt: d.at } : {};
      return touch(d.subscriptionId, { status: 'active', endsAt: d.endsAt, planCode: d.planCode, externalId: d.externalId, ...renewed });
    }
    case 'SubscriptionCancelled':
      return touch(event.data.subscriptionId, { status: 'cancelled', ...(event.data.externalId ? { externalId: event.data.externalId } : {}) });
    case 'SubscriptionReconciled':
      return touch(event.data.subscriptionId, { status: event.data.status, endsAt: event.data.endsAt, ...(event.data.externalId ? { externalId: event.data.externalId } : {}) });
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
