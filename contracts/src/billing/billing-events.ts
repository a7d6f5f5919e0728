import { z } from 'zod';

/** A money amount as an exact decimal string with two places (`"299.00"`); never a binary float. */
export const moneyAmountSchema = z.string().regex(/^\d{1,12}\.\d{2}$/, 'must be a decimal amount with two places');

export const planCodeSchema = z.enum(['basic-m', 'basic-y', 'free', 'free-forever']);
export type PlanCode = z.infer<typeof planCodeSchema>;

const iso = z.string();

/**
 * Integration events of the billing service (`billing.events.<Type>`), v1, on BILLING_EVENTS. Each user's
 * subscriptions and payments are one event stream (`billing-user-<userId>`); these events are its state.
 */
export const paymentRecordedV1 = z.object({
  version: z.literal(1),
  userId: z.string(),
  /** The provider's TransactionId: one payment, however many times it is reported. */
  paymentId: z.string(),
  /** SubscriptionPayment.uuid: the client's payment id (InvoiceId) when the client confirmed it, else the TransactionId. */
  uuid: z.string(),
  invoiceId: z.string().nullable(),
  amount: moneyAmountSchema,
  currency: z.string(),
  planCode: planCodeSchema,
  source: z.enum(['client', 'webhook']),
  subscriptionId: z.string().uuid(),
  at: iso,
});
export const subscriptionStartedV1 = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  planCode: planCodeSchema,
  startsAt: iso,
  /** Null for a plan with no end (free-forever). */
  endsAt: iso.nullable(),
  externalId: z.string().nullable(),
  at: iso,
});
/** A paid period added to a subscription (a recurring charge, or a payment while one is active). */
export const subscriptionExtendedV1 = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  planCode: planCodeSchema,
  endsAt: iso,
  externalId: z.string().nullable(),
  at: iso,
});
/** The provider stopped the recurring charges; the subscription stays usable until `endsAt`. */
export const subscriptionCancelledV1 = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  reason: z.enum(['provider_cancelled', 'provider_rejected', 'provider_expired', 'sync']),
  at: iso,
});
/** Status or end date corrected to what the provider says (sync, daily reconcile). */
export const subscriptionReconciledV1 = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  status: z.enum(['active', 'cancelled']),
  endsAt: iso.nullable(),
  drift: z.array(z.string()),
  at: iso,
});
/** Removed by `clear:outdated-subscriptions` (ended more than two days ago). */
export const subscriptionRemovedV1 = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  endedAt: iso.nullable(),
  at: iso,
});
/** A payment we could not attribute to a user and plan; kept for an operator. */
export const paymentUnattributedV1 = z.object({
  version: z.literal(1),
  paymentId: z.string(),
  accountId: z.string().nullable(),
  invoiceId: z.string().nullable(),
  amount: z.string(),
  currency: z.string(),
  reason: z.string(),
  at: iso,
});

export const BillingEventTypes = {
  PaymentRecorded: 'PaymentRecorded',
  SubscriptionStarted: 'SubscriptionStarted',
  SubscriptionExtended: 'SubscriptionExtended',
  SubscriptionCancelled: 'SubscriptionCancelled',
  SubscriptionReconciled: 'SubscriptionReconciled',
  SubscriptionRemoved: 'SubscriptionRemoved',
  PaymentUnattributed: 'PaymentUnattributed',
} as const;

export type PaymentRecordedV1 = z.infer<typeof paymentRecordedV1>;
export type SubscriptionStartedV1 = z.infer<typeof subscriptionStartedV1>;
export type SubscriptionExtendedV1 = z.infer<typeof subscriptionExtendedV1>;
export type SubscriptionCancelledV1 = z.infer<typeof subscriptionCancelledV1>;
export type SubscriptionReconciledV1 = z.infer<typeof subscriptionReconciledV1>;
export type SubscriptionRemovedV1 = z.infer<typeof subscriptionRemovedV1>;
export type PaymentUnattributedV1 = z.infer<typeof paymentUnattributedV1>;

/** Every billing event, discriminated by `type`: a `switch` over it is exhaustive. */
export type BillingEvent =
  | { type: 'PaymentRecorded'; data: PaymentRecordedV1 }
  | { type: 'SubscriptionStarted'; data: SubscriptionStartedV1 }
  | { type: 'SubscriptionExtended'; data: SubscriptionExtendedV1 }
  | { type: 'SubscriptionCancelled'; data: SubscriptionCancelledV1 }
  | { type: 'SubscriptionReconciled'; data: SubscriptionReconciledV1 }
  | { type: 'SubscriptionRemoved'; data: SubscriptionRemovedV1 }
  | { type: 'PaymentUnattributed'; data: PaymentUnattributedV1 };

/** Schema of each billing event type's data, for readers that validate what they receive. */
export const billingEventSchemas = {
  PaymentRecorded: paymentRecordedV1,
  SubscriptionStarted: subscriptionStartedV1,
  SubscriptionExtended: subscriptionExtendedV1,
  SubscriptionCancelled: subscriptionCancelledV1,
  SubscriptionReconciled: subscriptionReconciledV1,
  SubscriptionRemoved: subscriptionRemovedV1,
  PaymentUnattributed: paymentUnattributedV1,
} as const;
