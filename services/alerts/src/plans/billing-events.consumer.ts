import { assertNever, type BillingBusEvent, BillingEventTypes, decodeBillingEvent } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, eventStreamSource, type Logger, type Tx } from '@invest/platform';
import type { FiringPublisher } from '../delivery/firing-publisher.js';
import { countFirings } from '../evaluation/firings.metrics.js';
import { recordAccountNotice } from '../notices/account-notice.repository.js';
import { chargeFailedNotice } from '../notices/charge-failed-notice.js';
import type { EntitlementsClient } from './entitlements.client.js';
import { recordPaidAccess } from './paid-access.repository.js';

export const BILLING_EVENTS_DURABLE = 'alerts__billing-events';

/**
 * A user's billing changed (a payment, a subscription started, extended, cancelled, corrected or removed, a charge
 * declined): billing is asked for their entitlements once, and until when their paid access runs is recorded.
 * Billing decides what the user's subscriptions add up to; evaluation only compares that time with its clock, so
 * it never asks billing itself, and paying again lets what was paused fire without the user doing anything. A
 * declined charge of a subscription is also told to the user: a notice in their inbox, which delivery sends on.
 */
export async function handleBillingEvent(event: BillingBusEvent, tx: Tx, entitlements: EntitlementsClient, notices: BillingNotices): Promise<void> {
  switch (event.type) {
    case BillingEventTypes.ChargeFailed: {
      await recordPaidAccess(tx, await entitlements.ask(event.data.userId));
      // The user is told in the inbox (and, through delivery, on their channels): docs/decisions/0036-billing-notices.md.
      const notice = chargeFailedNotice(event.data, notices.marketTz);
      if (notice) {
        const committed = await recordAccountNotice(notices.db, notice, notices.clock());
        if (committed) {
          countFirings(committed.firings);
          void notices.publisher.publish(committed);
        }
      }
      return;
    }
    case BillingEventTypes.PaymentRecorded:
    case BillingEventTypes.SubscriptionStarted:
    case BillingEventTypes.SubscriptionExtended:
    case BillingEventTypes.SubscriptionCancelled:
    case BillingEventTypes.SubscriptionResumed:
    case BillingEventTypes.PaymentRefunded:
    case BillingEventTypes.SubscriptionReconciled:
    case BillingEventTypes.SubscriptionRemoved:
      return recordPaidAccess(tx, await entitlements.ask(event.data.userId));
    case BillingEventTypes.PaymentUnattributed:
      // Nobody's: no user to ask about.
      return;
    case BillingEventTypes.ReceiptIssued:
      // A fiscal receipt changes no paid access.
      return;
    default:
      return assertNever(event, 'billing event');
  }
}

/** What recording a billing notice in the inbox needs: it commits on its own and is published at once. */
export interface BillingNotices {
  db: Db;
  publisher: FiringPublisher;
  clock: () => Date;
  /** The zone the notice's times are written in (`MARKET_TZ`). */
  marketTz: string;
}

/** Durable consumer `alerts__billing-events` on BILLING_EVENTS (every type). */
export function createBillingEventsConsumer(opts: { db: Db; bus: Bus; logger: Logger; entitlements: EntitlementsClient; notices: Omit<BillingNotices, 'db'> }): DurableConsumer<BillingBusEvent> {
  const notices: BillingNotices = { db: opts.db, ...opts.notices };
  return new DurableConsumer<BillingBusEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'billing'),
    durableName: BILLING_EVENTS_DURABLE,
    logger: opts.logger,
    decode: decodeBillingEvent,
    handle: (event, tx) => handleBillingEvent(event, tx, opts.entitlements, notices),
  });
}
