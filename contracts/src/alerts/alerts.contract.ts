import { z } from 'zod';
import { assetRefSchema, assetTypeSchema } from '../common/assets.js';
import { decimalOutputSchema, decimalSchema } from '../common/decimal.js';
import { type Page, pageQuerySchema } from '../common/paging.js';
import { resourceIdSchema, storableText } from '../portfolios/common.js';

/** NotificationType ids of the spec. */
export const NotificationTypeIds = { priceTarget: 2, priceChange: 8 } as const;
export const notificationTypeCodeSchema = z.enum(['price-target', 'price-change']);
export type NotificationTypeCode = z.infer<typeof notificationTypeCodeSchema>;

/**
 * What an inbox item (a firing) is: a notification's type, or an account notice alerts records for another
 * context's event, of no notification (`charge-failed`: billing's ChargeFailed; docs/decisions/0036-billing-notices.md).
 */
export const ACCOUNT_NOTICE_TYPES = ['charge-failed'] as const;
export const firingTypeSchema = z.enum([...notificationTypeCodeSchema.options, ...ACCOUNT_NOTICE_TYPES]);
export type FiringType = z.infer<typeof firingTypeSchema>;

/** Locales fired notifications are rendered in (chosen by the gateway from `Accept-Language`). */
export const LOCALES = ['ru', 'en'] as const;
export const localeSchema = z.enum(LOCALES).default('ru');
export type Locale = z.infer<typeof localeSchema>;

export const PRICE_CHANGE_THRESHOLDS = [1, 2, 3, 5, 10] as const;
/** frequency → cooldown_minutes */
export const COOLDOWN_MINUTES = { hourly: 60, daily: 1440 } as const;

const nameSchema = storableText(z.string({ error: 'The name must be a string.' }).max(255, 'The name may not be greater than 255 characters.'), 'name');

/**
 * A target price: an exact decimal like every price a client sends (`decimalSchema`: at most 8 decimal places,
 * at most 1e15, a decimal string too), as its canonical text. Alerts stores it as `numeric` and compares rates
 * with it exactly, however many significant digits it has.
 */
const targetPriceSchema = decimalSchema('target price', 'positive');

/**
 * Which way a price-target waits: `above` fires when the rate reaches the target from below (`>=`), `below`
 * when it falls to it (`<=`).
 */
export const PRICE_TARGET_DIRECTIONS = ['above', 'below'] as const;
export const priceTargetDirectionSchema = z.enum(PRICE_TARGET_DIRECTIONS, { error: 'The direction must be above or below.' });
export type PriceTargetDirection = z.infer<typeof priceTargetDirectionSchema>;

/**
 * `POST /api/price-alert` → `alerts.price-alerts.create` (price-target, type id 2). Without `direction` the
 * current rate decides it (a target above it waits for a rise); with it, a target the rate has already reached
 * that way is refused.
 */
export const createPriceAlertRequestSchema = z.object({
  target_price: targetPriceSchema,
  assetable: assetRefSchema,
  direction: priceTargetDirectionSchema.nullish(),
  name: nameSchema.nullish(),
});
export type CreatePriceAlertRequest = z.infer<typeof createPriceAlertRequestSchema>;

/** `POST /api/price-change-alert` → `alerts.price-change-alerts.create` (price-change, type id 8). */
export const createPriceChangeAlertRequestSchema = z
  .object({
    threshold: z.preprocess(
      (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
      z
        .number({ error: `The threshold must be one of: ${PRICE_CHANGE_THRESHOLDS.join(', ')}.` })
        .refine((n) => (PRICE_CHANGE_THRESHOLDS as readonly number[]).includes(n), `The threshold must be one of: ${PRICE_CHANGE_THRESHOLDS.join(', ')}.`),
    ),
    frequency: z.enum(['hourly', 'daily'], { error: 'The frequency must be hourly or daily.' }),
    targetable_type: z.enum(['asset', 'portfolio', 'watchlist'], { error: 'The targetable type must be asset, portfolio or watchlist.' }),
    targetable_id: z.preprocess(
      (v) => (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v) ? Number(v) : v),
      z.number({ error: 'The targetable id must be a positive integer.' }).int('The targetable id must be a positive integer.').positive('The targetable id must be a positive integer.'),
    ),
    assetable_type_simplified: assetTypeSchema.nullish(),
    name: nameSchema.nullish(),
  })
  .superRefine((v, ctx) => {
    if (v.targetable_type === 'asset' && !v.assetable_type_simplified) {
      ctx.addIssue({ code: 'custom', path: ['assetable_type_simplified'], message: 'The assetable type simplified field is required when the target is an asset.' });
    }
  });
export type CreatePriceChangeAlertRequest = z.infer<typeof createPriceChangeAlertRequestSchema>;

/** `alerts.notifications.switch` / `.delete`: `{ id }` from the path (a malformed id is a 404). */
export const notificationIdRequestSchema = z.object({ id: resourceIdSchema });

export const listNotificationsRequestSchema = pageQuerySchema;

/** `alerts.notification-events.list`: the inbox, newest first; `after_id` (SSE replay) lists oldest first after it. */
export const listNotificationEventsRequestSchema = pageQuerySchema.extend({
  locale: localeSchema,
  // An empty value means "not given", as for every query field (`?unread=`).
  unread: z.preprocess((v) => (v === '' ? undefined : v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v), z.boolean({ error: 'The unread filter must be true or false.' }).optional()),
  after_id: z.coerce.number({ error: 'The after id must be an integer.' }).int().min(0).optional(),
});
export type ListNotificationEventsRequest = z.infer<typeof listNotificationEventsRequestSchema>;

/** `alerts.notification-events.mark-read`: the given ids, or every one up to `up_to_id`, or all (`all: true`). */
export const markReadRequestSchema = z
  .object({
    ids: z.array(z.number({ error: 'Each id must be an integer.' }).int().positive()).max(500, 'At most 500 ids at once.').optional(),
    all: z.boolean({ error: 'The all field must be true or false.' }).optional(),
  })
  .refine((v) => v.all === true || (v.ids?.length ?? 0) > 0, { path: ['ids'], message: 'Give the ids to mark read, or all: true.' });
export type MarkReadRequest = z.infer<typeof markReadRequestSchema>;

export const notificationTargetSchema = z.object({
  type: z.enum(['asset', 'portfolio', 'watchlist']),
  id: z.number().int(),
  asset_type: assetTypeSchema.nullable(),
  ticker: z.string().nullable(),
  name: z.string().nullable(),
  /** Asset targets: the latest rate alerts know (exact, as stored), its 24h change and time. */
  current_rate: decimalOutputSchema.nullable(),
  price_change_percentage_24h: z.number().nullable(),
  rate_as_of: z.string().nullable(),
  /** Portfolio/watchlist targets: how many assets alerts know it holds. */
  assets_count: z.number().int().nullable(),
});

export const notificationSchema = z.object({
  id: z.number().int(),
  type: notificationTypeCodeSchema,
  notification_type_id: z.number().int(),
  name: z.string().nullable(),
  is_active: z.boolean(),
  /**
   * Active but not firing: the user's paid access ended and the free plan does not allow this one (see the
   * alerts README, "When paid access ends"). It fires again once the user pays; nothing else changes.
   */
  paused: z.boolean(),
  last_triggered_at: z.string().nullable(),
  /**
   * `value`: a price-target's target price, a price-change's threshold step (percent). Exact decimals
   * (decimalOutputSchema, both kinds: one field), so a target is answered with every digit it was stored with.
   */
  condition: z.object({
    operator: z.enum(['>=', '<=']),
    value: decimalOutputSchema,
    /** Price-change: the threshold the next firing needs (after the daily reset, as of now). */
    initial_value: decimalOutputSchema,
    cooldown_minutes: z.number().int().nullable(),
  }),
  target: notificationTargetSchema,
  created_at: z.string(),
});
export type NotificationView = z.infer<typeof notificationSchema>;

/**
 * Beside the list of notifications: how many are active and how many the plan allows (`limit` null: no limit),
 * so a client shows the limit before a create or a switch-on runs into the 403. Missing when billing did not answer.
 */
export const activeNotificationsSchema = z.object({
  count: z.number().int(),
  limit: z.number().int().nullable(),
  /** Whether the plan is a paid one (a free plan's limit is the one worth naming). */
  paid: z.boolean(),
});
export type ActiveNotifications = z.infer<typeof activeNotificationsSchema>;
export interface NotificationsPage extends Page<NotificationView> {
  active_notifications?: ActiveNotifications;
}
export interface NotificationReply {
  data: NotificationView;
}

/** One asset that crossed in a firing. */
export const crossedAssetSchema = z.object({
  type: assetTypeSchema,
  id: z.number().int(),
  ticker: z.string(),
  name: z.string().nullable(),
  rate: z.number().nullable(),
  price_change_percentage_24h: z.number().nullable(),
  /** The rate's time at the provider. */
  as_of: z.string(),
});
export type CrossedAsset = z.infer<typeof crossedAssetSchema>;

/** Why a firing happened (also in NotificationFired). */
export const firingExplanationSchema = z.object({
  /** The target price (price-target) or the threshold step that was crossed, in percent (price-change). */
  threshold: z.number(),
  operator: z.enum(['>=', '<=']),
  /** Price-change: the threshold of the next firing (null for price-target, which deactivates). */
  next_threshold: z.number().nullable(),
  /** Price-change: no firing before this time (null for price-target). */
  cooldown_ends_at: z.string().nullable(),
  /** The headline rate and change (the asset that crossed furthest). */
  rate: z.number().nullable(),
  price_change_percentage_24h: z.number().nullable(),
  rate_as_of: z.string(),
  /** When the rate was observed (recorded by the market service) and how long it took to fire. */
  observed_at: z.string(),
  latency_ms: z.number(),
  /** `event` (RatesUpdated consumer) or the sweep job's name. */
  source: z.string(),
});
export type FiringExplanation = z.infer<typeof firingExplanationSchema>;

export const notificationEventSchema = z.object({
  id: z.number().int(),
  /** Null for an account notice (`charge-failed`), which is of no notification. */
  notification_id: z.number().int().nullable(),
  type: firingTypeSchema,
  title: z.string(),
  body: z.string(),
  path: z.string(),
  assets: z.array(crossedAssetSchema),
  /** Why a price notification fired; null for an account notice. */
  explanation: firingExplanationSchema.nullable(),
  read_at: z.string().nullable(),
  fired_at: z.string(),
});
export type NotificationEventView = z.infer<typeof notificationEventSchema>;

/**
 * `alerts.firings.deliverable` (internal: delivery asks just before sending, for the messages of many users at once):
 * which of the given firings may still go out, i.e. the firing is the named user's, and its notification exists and
 * was not switched off since it fired. Another user's firing, or one of a deleted notification, is simply not in the
 * answer.
 */
export const deliverableFiringsRequestSchema = z.object({
  firings: z.array(z.object({ user_id: z.string().min(1), firing_id: z.number().int().positive() })).max(5000),
});
export type DeliverableFiringsRequest = z.infer<typeof deliverableFiringsRequestSchema>;
export const deliverableFiringsReplySchema = z.object({ data: z.object({ firing_ids: z.array(z.number().int()) }) });
export type DeliverableFiringsReply = z.infer<typeof deliverableFiringsReplySchema>;
