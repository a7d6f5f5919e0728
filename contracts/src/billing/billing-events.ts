import { z } from 'zod';
import { type BusEvent, decodeEvent, type EventDataOf, type EventOf, eventTypeNames, type UnknownEvent } from '../common/events.js';

/** A money amount as an exact decimal string with two places (`"299.00"`); never a binary float. */
export const moneyAmountSchema = z.string().regex(/^\d{1,12}\.\d{2}$/, 'must be a decimal amount with two places');

export const planCodeSchema = z.enum(['basic-m', 'basic-y', 'free', 'free-forever']);
export type PlanCode = z.infer<typeof planCodeSchema>;

const iso = z.string();

/**
 * Integration events of the billing service (`billing.events.<Type>`), v1, on BILLING_EVENTS. Each user's
 * subscriptions and payments are one event stream (`billing-user-<userId>`); these events are its state.
 */
export const paymentRecordedV1Schema = z.object({
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
  /**
   * Whether it bought paid time (a SubscriptionStarted or SubscriptionExtended follows it). False: worth less
   * than one day of its plan, it is recorded but starts, extends and renews nothing, and `subscriptionId` names
   * the subscription it would have started, never started. Absent in events written before the field: true.
   */
  grantsAccess: z.boolean().optional(),
  /** The card's last four digits (`CardLastFour` of the notification) when the provider said; shown in the payment history. */
  cardLastFour: z.string().optional(),
  /**
   * A second purchase of the plan that runs (another tab, an old invoice) within `REPEAT_PURCHASE_MINUTES` of
   * the payment that bought it: this names that payment. It grants nothing (`grantsAccess: false`) and billing
   * refunds it in full through the provider (`payments/refund`); its Refund notification marks it refunded.
   */
  repeatOf: z.string().optional(),
  at: iso,
});
export const subscriptionStartedV1Schema = z.object({
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
export const subscriptionExtendedV1Schema = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  planCode: planCodeSchema,
  endsAt: iso,
  externalId: z.string().nullable(),
  /**
   * A change of plan that took effect now (monthly to yearly): the plan it was, and the credit of its unused time
   * taken off the new plan's price (exact decimal text). Absent: a period added to the same plan.
   */
  planChange: z.object({ fromPlanCode: planCodeSchema, credit: moneyAmountSchema }).optional(),
  at: iso,
});
/** The provider stopped the recurring charges; the subscription stays usable until `endsAt`. */
export const subscriptionCancelledV1Schema = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  /** `user_cancelled`: the user cancelled in the app (`POST /api/subscription/cancel`); added later, readers ignore the reason. */
  reason: z.enum(['provider_cancelled', 'provider_rejected', 'provider_expired', 'sync', 'user_cancelled']),
  /** Set when this event links the subscription to the provider's (`sc_…`), found by the account: its external_id from now on. */
  externalId: z.string().optional(),
  at: iso,
});
/**
 * The user resumed a cancelled subscription before its end: active again, its recurring charge a new provider
 * subscription (`externalId`, created to start at the end; the cancelled one is never reactivated).
 */
export const subscriptionResumedV1Schema = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  externalId: z.string(),
  /**
   * A change of plan at the period's end (yearly to monthly): the plan the new provider subscription charges
   * from `ends_at` on (its first charge then extends the subscription with that plan). Absent: the same plan.
   */
  nextPlanCode: planCodeSchema.optional(),
  at: iso,
});
/**
 * The provider refunded (part of) a payment (a Refund notification, once per refund TransactionId): the paid time
 * it bought is taken back in proportion (`endsAt`, the subscription's end after it; null when it bought none).
 */
export const paymentRefundedV1Schema = z.object({
  version: z.literal(1),
  userId: z.string(),
  /** The refunded payment's TransactionId (`PaymentTransactionId`). */
  paymentId: z.string(),
  /** The refund's own TransactionId. */
  refundId: z.string(),
  /** What this refund returned (never more than was paid and not yet refunded). */
  amount: moneyAmountSchema,
  subscriptionId: z.string().uuid().nullable(),
  endsAt: iso.nullable(),
  at: iso,
});
/**
 * A charge the provider declined (a Fail notification, once per its TransactionId). With the subscription it was
 * for: `past_due`, usable until `graceUntil` (the grace period from its first failed charge), `attemptsLeft` more
 * tries by the provider. Without one (a declined first payment) it is only listed in the history.
 */
export const chargeFailedV1Schema = z.object({
  version: z.literal(1),
  userId: z.string(),
  /** The declined transaction's TransactionId. */
  paymentId: z.string(),
  amount: moneyAmountSchema,
  currency: z.string(),
  planCode: planCodeSchema.nullable(),
  subscriptionId: z.string().uuid().nullable(),
  /** The provider's `Reason` (`InsufficientFunds`), when it gave one. */
  reason: z.string().nullable(),
  cardLastFour: z.string().optional(),
  /** Consecutive failed charges of the subscription, this one included (0 without a subscription). */
  attempt: z.number().int(),
  attemptsLeft: z.number().int(),
  graceUntil: iso.nullable(),
  at: iso,
});
/**
 * The fiscal receipt (54-FZ) of a charge, from the provider's Receipt notification: once per its TransactionId and
 * `receiptType` (`Income` for a payment, `IncomeReturn` for a refund). The history links an `Income` one.
 */
export const receiptIssuedV1Schema = z.object({
  version: z.literal(1),
  userId: z.string(),
  /** The charge's TransactionId (a payment's; for a refund receipt, the payment the refund returned). */
  paymentId: z.string(),
  /** The notification's TransactionId. */
  transactionId: z.string(),
  receiptType: z.string(),
  url: z.string(),
  documentNumber: z.string().nullable(),
  at: iso,
});
/** Status or end date corrected to what the provider says (sync, daily reconcile). */
export const subscriptionReconciledV1Schema = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  status: z.enum(['active', 'cancelled']),
  endsAt: iso.nullable(),
  drift: z.array(z.string()),
  /** Set when this event links the subscription to the provider's (`sc_…`), found by the account: its external_id from now on. */
  externalId: z.string().optional(),
  at: iso,
});
/** Removed by `clear:outdated-subscriptions` (ended more than two days ago). */
export const subscriptionRemovedV1Schema = z.object({
  version: z.literal(1),
  userId: z.string(),
  subscriptionId: z.string().uuid(),
  endedAt: iso.nullable(),
  at: iso,
});
/** A payment we could not attribute to a user and plan; kept for an operator. */
export const paymentUnattributedV1Schema = z.object({
  version: z.literal(1),
  paymentId: z.string(),
  accountId: z.string().nullable(),
  invoiceId: z.string().nullable(),
  amount: z.string(),
  currency: z.string(),
  reason: z.string(),
  at: iso,
});

export type PaymentRecordedV1 = z.infer<typeof paymentRecordedV1Schema>;
export type SubscriptionStartedV1 = z.infer<typeof subscriptionStartedV1Schema>;
export type SubscriptionExtendedV1 = z.infer<typeof subscriptionExtendedV1Schema>;
export type SubscriptionCancelledV1 = z.infer<typeof subscriptionCancelledV1Schema>;
export type PaymentRefundedV1 = z.infer<typeof paymentRefundedV1Schema>;
export type ChargeFailedV1 = z.infer<typeof chargeFailedV1Schema>;
export type ReceiptIssuedV1 = z.infer<typeof receiptIssuedV1Schema>;
export type SubscriptionResumedV1 = z.infer<typeof subscriptionResumedV1Schema>;
export type SubscriptionReconciledV1 = z.infer<typeof subscriptionReconciledV1Schema>;
export type SubscriptionRemovedV1 = z.infer<typeof subscriptionRemovedV1Schema>;
export type PaymentUnattributedV1 = z.infer<typeof paymentUnattributedV1Schema>;

/**
 * Every integration event on BILLING_EVENTS (`billing.events.<Type>`), with the data versions this release
 * reads. A new type or version is added here first; readers are deployed before writers publish it.
 */
export const billingEvents = {
  PaymentRecorded: paymentRecordedV1Schema,
  SubscriptionStarted: subscriptionStartedV1Schema,
  SubscriptionExtended: subscriptionExtendedV1Schema,
  SubscriptionCancelled: subscriptionCancelledV1Schema,
  SubscriptionResumed: subscriptionResumedV1Schema,
  PaymentRefunded: paymentRefundedV1Schema,
  ChargeFailed: chargeFailedV1Schema,
  ReceiptIssued: receiptIssuedV1Schema,
  SubscriptionReconciled: subscriptionReconciledV1Schema,
  SubscriptionRemoved: subscriptionRemovedV1Schema,
  PaymentUnattributed: paymentUnattributedV1Schema,
};

/** Type names of BILLING_EVENTS: `BillingEventTypes.PaymentRecorded === 'PaymentRecorded'`. */
export const BillingEventTypes = eventTypeNames(billingEvents);
export type BillingEventType = keyof typeof billingEvents;

/** An event of BILLING_EVENTS as consumers receive it; `switch (event.type)` narrows its data. */
export type BillingBusEvent = EventOf<typeof billingEvents>;

/** `{type, data}` of a billing event: what billing's decider decides and its projection applies. */
export type BillingEvent = EventDataOf<typeof billingEvents>;

/** The typed BILLING_EVENTS event, or `UnknownEvent` when this release does not read its type or version. */
export function decodeBillingEvent(event: BusEvent): BillingBusEvent | UnknownEvent {
  return decodeEvent(billingEvents, event);
}
