import { assertNever, type BillingBusEvent, BillingEventTypes, decodeBillingEvent } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, eventStreamSource, type Logger, type Tx } from '@invest/platform';
import type { EntitlementsClient } from './entitlements.client.js';
import { recordPaidAccess } from './paid-access.repository.js';

export const BILLING_EVENTS_DURABLE = 'alerts__billing-events';

/**
 * A user's billing changed (a payment, a subscription started, extended, cancelled, corrected or removed): billing
 * is asked for their entitlements once, and until when their paid access runs is recorded. Billing decides what
 * the user's subscriptions add up to; evaluation only compares that time with its clock, so it never asks billing
 * itself, and paying again lets what was paused fire without the user doing anything.
 */
export async function handleBillingEvent(event: BillingBusEvent, tx: Tx, entitlements: EntitlementsClient): Promise<void> {
  switch (event.type) {
    case BillingEventTypes.PaymentRecorded:
    case BillingEventTypes.SubscriptionStarted:
    case BillingEventTypes.SubscriptionExtended:
    case BillingEventTypes.SubscriptionCancelled:
    case BillingEventTypes.SubscriptionResumed:
    case BillingEventTypes.PaymentRefunded:
    case BillingEventTypes.ChargeFailed:
    case BillingEventTypes.SubscriptionReconciled:
    case BillingEventTypes.SubscriptionRemoved:
      return recordPaidAccess(tx, await entitlements.ask(event.data.userId));
    case BillingEventTypes.PaymentUnattributed:
      // Nobody's: no user to ask about.
      return;
    default:
      return assertNever(event, 'billing event');
  }
}

/** Durable consumer `alerts__billing-events` on BILLING_EVENTS (every type). */
export function createBillingEventsConsumer(opts: { db: Db; bus: Bus; logger: Logger; entitlements: EntitlementsClient }): DurableConsumer<BillingBusEvent> {
  return new DurableConsumer<BillingBusEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'billing'),
    durableName: BILLING_EVENTS_DURABLE,
    logger: opts.logger,
    decode: decodeBillingEvent,
    handle: (event, tx) => handleBillingEvent(event, tx, opts.entitlements),
  });
}
