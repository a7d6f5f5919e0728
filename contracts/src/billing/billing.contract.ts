import { z } from 'zod';
import { requiredString } from '../common/text.js';
import { moneyAmountSchema, planCodeSchema } from './billing-events.js';

/** `POST /api/subscribe`: the client confirms a payment it made through the widget with `InvoiceId = uuid`. */
export const subscribeRequestSchema = z.object({
  uuid: requiredString('uuid').uuid('The uuid must be a valid UUID.'),
  plan: requiredString('plan').min(1, 'The plan field is required.'),
});
export type SubscribeRequest = z.infer<typeof subscribeRequestSchema>;

/**
 * The provider's receipt object (54-FZ, reference §6 `R`) for one charge: the widget sends it as
 * `data.cloudPayments.customerReceipt`, `subscriptions/create` as `CustomerReceipt`. Rubles with 2 decimals;
 * `amount` is the line total. `email`/`phone` empty: the provider's widget asks the payer.
 */
export const customerReceiptSchema = z.object({
  Items: z.array(
    z.object({
      label: z.string(),
      price: z.number(),
      quantity: z.number(),
      amount: z.number(),
      /** null: без НДС; 0, 10, 20, 110, 120. */
      vat: z.number().nullable(),
      /** 4: полный расчёт. */
      method: z.number().int(),
      /** 4: услуга. */
      object: z.number().int(),
    }),
  ),
  /** 0 ОСН, 1 УСН доход, 2 УСН доход−расход, 3 ЕНВД, 4 ЕСХН, 5 патент. */
  taxationSystem: z.number().int(),
  email: z.string(),
  phone: z.string(),
});
export type CustomerReceipt = z.infer<typeof customerReceiptSchema>;

/**
 * `POST /api/subscription/checkout`: asked before the payment widget opens. `invoice_id`: the client's invoice
 * (kept across a closed and reopened dialog); none, and billing makes one.
 */
export const checkoutRequestSchema = z.object({
  plan: requiredString('plan').min(1, 'The plan field is required.'),
  invoice_id: z.string().uuid('The invoice_id must be a valid UUID.').optional(),
});
export type CheckoutRequest = z.infer<typeof checkoutRequestSchema>;
/** What the widget pays: the invoice (then `/api/subscribe`'s uuid), the plan's price, the account, the recurrent charge. */
export const checkoutReplySchema = z.object({
  data: z.object({
    invoice_id: z.string().uuid(),
    plan: planCodeSchema,
    amount: moneyAmountSchema,
    currency: z.string(),
    account_id: z.string(),
    /** The widget's recurrent charge: every `period` months. */
    recurrent: z.object({ interval: z.literal('Month'), period: z.number().int() }),
    /** The receipt (54-FZ) the charge carries: the widget's `data.cloudPayments.customerReceipt`. */
    receipt: customerReceiptSchema.nullable(),
  }),
});
export type CheckoutReply = z.infer<typeof checkoutReplySchema>;

/** `POST /api/subscription/change-plan`: the paid plan to change to (monthly to yearly now, yearly to monthly at the period's end). */
export const changePlanRequestSchema = z.object({
  plan: requiredString('plan').min(1, 'The plan field is required.'),
});
export type ChangePlanRequest = z.infer<typeof changePlanRequestSchema>;

export const planPeriodSchema = z.enum(['month', 'year']);

/** A plan as clients see it (`GET /api/plans`). `price` is an exact decimal string; free plans have none. */
export const planSchema = z.object({
  id: z.number().int(),
  code: planCodeSchema,
  title: z.string(),
  price: moneyAmountSchema.nullable(),
  currency: z.string().nullable(),
  period: planPeriodSchema.nullable(),
  paid: z.boolean(),
  /** `GET /api/plans` only: the receipt object a charge of this plan carries (null for a free plan). */
  receipt: customerReceiptSchema.nullable().optional(),
});
export type PlanView = z.infer<typeof planSchema>;
export const listPlansReplySchema = z.object({ data: z.array(planSchema) });
export type ListPlansReply = z.infer<typeof listPlansReplySchema>;

/** The user's current subscription (the most recently updated one). */
export const subscriptionSchema = z.object({
  id: z.string().uuid(),
  plan: planSchema,
  /** `past_due`: the last recurring charge was declined; usable through `grace_until` while the provider tries again. */
  status: z.enum(['active', 'cancelled', 'past_due']),
  starts_at: z.string(),
  ends_at: z.string().nullable(),
  external_id: z.string().nullable(),
  /** True while the paid period runs (also when cancelled: it stays usable until ends_at), or its grace period after a declined charge. */
  usable: z.boolean(),
  /** After a declined recurring charge: access is kept until then (null: no grace period). */
  grace_until: z.string().nullable(),
  /** Consecutive declined charges, and how many more the provider tries (three in all). */
  failed_charges: z.number().int(),
  attempts_left: z.number().int(),
  updated_at: z.string(),
});
export type SubscriptionView = z.infer<typeof subscriptionSchema>;
export const subscriptionReplySchema = z.object({ data: subscriptionSchema.nullable() });
export type SubscriptionReply = z.infer<typeof subscriptionReplySchema>;

/** One of the user's recorded payments (`GET /api/payments`), newest first. */
export const paymentSchema = z.object({
  /** SubscriptionPayment.uuid: the client's payment id, or the provider's TransactionId when its notification recorded it. */
  uuid: z.string(),
  transaction_id: z.string(),
  amount: moneyAmountSchema,
  currency: z.string(),
  source: z.enum(['client', 'webhook']),
  /** False: worth less than one day of its plan, it is recorded but grants no paid access. */
  grants_access: z.boolean(),
  /** The subscription it paid for; null when it grants no paid access. */
  subscription_id: z.string().uuid().nullable(),
  created_at: z.string(),
});
export type PaymentView = z.infer<typeof paymentSchema>;
export const listPaymentsReplySchema = z.object({ data: z.array(paymentSchema) });
export type ListPaymentsReply = z.infer<typeof listPaymentsReplySchema>;

/** One charge in the payment history (`GET /api/subscription/payments`), newest first. */
export const paymentHistoryItemSchema = z.object({
  /** The provider's TransactionId of the charge. */
  id: z.string(),
  /** When it was charged (or declined), ISO. */
  date: z.string(),
  amount: moneyAmountSchema,
  currency: z.string(),
  /** The plan it paid for; null for a declined charge whose plan is not known. */
  plan: planSchema.nullable(),
  status: z.enum(['paid', 'refunded', 'failed']),
  card_last_four: z.string().nullable(),
  /** The fiscal receipt (54-FZ) link once the provider sent it; null until then. */
  receipt_url: z.string().nullable(),
});
export type PaymentHistoryItem = z.infer<typeof paymentHistoryItemSchema>;

/**
 * The largest provider notification body the gateway forwards (a real one is a few KB; the payer sets some
 * fields, such as `Description`, in the browser). Base64 of it stays well below NATS's 1 MB message.
 */
export const PROVIDER_NOTIFICATION_MAX_BYTES = 512 * 1024;
/** The longest signature or Content-Type header forwarded; a longer HMAC is no HMAC (base64 of 32 bytes is 44). */
export const PROVIDER_HEADER_MAX_CHARS = 200;

/**
 * A provider notification as the gateway forwards it: the raw body bytes (base64, untouched) and the
 * signature headers. Billing checks the signature over those bytes before it parses anything.
 */
export const providerNotificationSchema = z.object({
  body: z.string().max(Math.ceil(PROVIDER_NOTIFICATION_MAX_BYTES / 3) * 4),
  contentType: z.string().max(PROVIDER_HEADER_MAX_CHARS).nullable(),
  contentHmac: z.string().max(PROVIDER_HEADER_MAX_CHARS).nullable(),
  xContentHmac: z.string().max(PROVIDER_HEADER_MAX_CHARS).nullable(),
});
export type ProviderNotification = z.infer<typeof providerNotificationSchema>;
/** CloudPayments' only success reply. */
export const providerReplySchema = z.object({ code: z.literal(0) });

export const notificationTargetTypeSchema = z.enum(['asset', 'portfolio', 'watchlist']);

/** What a user's plan allows; alerts and chat enforce it. `null` means unlimited. */
export const entitlementsSchema = z.object({
  userId: z.string(),
  plan: z.object({ id: z.number().int(), code: planCodeSchema }),
  paid: z.boolean(),
  /** When the paid access ends (null: never, or no paid access). */
  endsAt: z.string().nullable(),
  limits: z.object({
    activeNotifications: z.number().int().nullable(),
    notificationTargets: z.array(notificationTargetTypeSchema),
    chatMessagesPerDay: z.record(z.string(), z.number().int().nullable()),
  }),
});
export type Entitlements = z.infer<typeof entitlementsSchema>;

/**
 * What the free plan allows: billing answers it to a user without paid access, and alerts applies it from
 * the moment a paid access's `endsAt` passes (it does not ask billing again until the user's next billing event).
 */
export const FREE_PLAN_LIMITS: Entitlements['limits'] = {
  activeNotifications: 3,
  notificationTargets: ['asset'],
  chatMessagesPerDay: { portfolio_health: 5, support: 10 },
};
export const entitlementsRequestSchema = z.object({ userId: z.string().min(1) });
