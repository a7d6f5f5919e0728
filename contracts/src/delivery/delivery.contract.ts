import { z } from 'zod';

/**
 * Where a fired notification goes besides the inbox, per user (issue 32): the delivery service's settings,
 * channel links and subscriptions. Requests carry the signed-in user in the RPC meta, never in the body.
 */
export const DeliveryChannels = ['in_app', 'telegram', 'push', 'email'] as const;
export const deliveryChannelSchema = z.enum(DeliveryChannels);
export type DeliveryChannel = z.infer<typeof deliveryChannelSchema>;

export const DeliveryLanguages = ['ru', 'en'] as const;
export const deliveryLanguageSchema = z.enum(DeliveryLanguages);
export type DeliveryLanguage = z.infer<typeof deliveryLanguageSchema>;

/** `HH:MM`, 24-hour clock, in the user's time zone; `label` names it in the message. */
const clockTime = (label: string) => z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, `The ${label} must be a time as HH:MM on a 24-hour clock (00:00-23:59).`);
export const clockTimeSchema = clockTime('time');

/** True for an IANA time zone this runtime knows (`Europe/Moscow`). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone this runtime knows (`Europe/Moscow`). */
export const timeZoneSchema = z.string().min(1).max(64).refine(isTimeZone, 'The time zone must be an IANA time zone such as Europe/Moscow.');

/** Quiet hours: messages due between `start` and `end` wait, then go out as one digest. `start` may be after `end` (overnight). */
export const quietHoursSchema = z
  .object({ start: clockTime('quiet hours start'), end: clockTime('quiet hours end') })
  .refine((q) => q.start !== q.end, 'The quiet hours must start and end at different times.');

export const deliveryFailureSchema = z.object({
  channel: deliveryChannelSchema,
  at: z.string(),
  /** What the provider said, for the settings screen ("last delivery failed: …"). */
  reason: z.string(),
});

export const notificationSettingsSchema = z.object({
  channels: z.object({ in_app: z.boolean(), telegram: z.boolean(), push: z.boolean(), email: z.boolean() }),
  quiet_hours: quietHoursSchema.nullable(),
  time_zone: z.string(),
  language: deliveryLanguageSchema,
  telegram: z.object({
    linked: z.boolean(),
    /** The bot was blocked by the user: the chat was unlinked; linking again restores it. */
    blocked: z.boolean(),
    muted_until: z.string().nullable(),
  }),
  email: z.object({ address: z.string().nullable(), confirmed: z.boolean() }),
  push: z.object({ devices: z.number().int() }),
  last_failures: z.array(deliveryFailureSchema),
});
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>;
export const notificationSettingsReplySchema = z.object({ data: notificationSettingsSchema });
export type NotificationSettingsReply = z.infer<typeof notificationSettingsReplySchema>;

/** `PUT /api/notification-settings`: every field optional; what is absent stays. */
export const putNotificationSettingsSchema = z
  .object({
    channels: z.object({ in_app: z.boolean(), telegram: z.boolean(), push: z.boolean(), email: z.boolean() }).partial().strict().optional(),
    quiet_hours: quietHoursSchema.nullable().optional(),
    time_zone: timeZoneSchema.optional(),
    language: deliveryLanguageSchema.optional(),
    /** A new address is unconfirmed until its link is followed; null removes it. */
    email: z.string().trim().max(254).email('The email must be a valid e-mail address.').nullable().optional(),
  })
  .strict();
export type PutNotificationSettingsRequest = z.infer<typeof putNotificationSettingsSchema>;

/** `POST /api/notification-channels/telegram/link`: a single-use deep link, valid 15 minutes. */
export const telegramLinkReplySchema = z.object({ data: z.object({ url: z.string(), expires_at: z.string() }) });
export type TelegramLinkReply = z.infer<typeof telegramLinkReplySchema>;

/** base64url without padding, as `PushSubscription.toJSON()` gives keys. */
const base64urlBytes = (n: (length: number) => boolean) => (v: string) => /^[A-Za-z0-9_-]+$/.test(v) && n(Math.floor((v.length * 3) / 4));

/** `POST /api/push-subscriptions`: a browser's PushSubscription as `toJSON()` gives it. */
export const pushSubscriptionSchema = z
  .object({
    // web-push sends over https only, and every browser's push service is https (RFC 8030).
    endpoint: z.string().url().max(2048).refine((u) => u.startsWith('https://'), 'The endpoint must be an https URL.'),
    expirationTime: z.number().nullable().optional(),
    keys: z.object({
      p256dh: z.string().min(1).max(200).refine(base64urlBytes((n) => n === 65), 'The keys.p256dh field must be a base64url P-256 public key (65 bytes).'),
      auth: z.string().min(1).max(100).refine(base64urlBytes((n) => n >= 16), 'The keys.auth field must be a base64url secret of at least 16 bytes.'),
    }),
  })
  .strip();
export type PushSubscriptionRequest = z.infer<typeof pushSubscriptionSchema>;
/** `DELETE /api/push-subscriptions`: the endpoint of the subscription to remove (the body, or `?endpoint=`). */
export const deletePushSubscriptionSchema = z.object({ endpoint: z.string().url().max(2048) });
export type DeletePushSubscriptionRequest = z.infer<typeof deletePushSubscriptionSchema>;

/** A stored subscription: its endpoint (the browser's capability URL) and when this user first registered it. */
export const pushSubscriptionReplySchema = z.object({ data: z.object({ endpoint: z.string(), created_at: z.string() }) });
export type PushSubscriptionReply = z.infer<typeof pushSubscriptionReplySchema>;

/** `GET /api/push-subscriptions/key`: the VAPID public key a browser subscribes with. */
export const pushKeyReplySchema = z.object({ data: z.object({ public_key: z.string() }) });
export type PushKeyReply = z.infer<typeof pushKeyReplySchema>;

export const DeliverySubjects = {
  settingsGet: 'delivery.settings.get',
  settingsPut: 'delivery.settings.put',
  telegramLink: 'delivery.telegram.link',
  /** A Telegram update the gateway accepted (its secret header checked). */
  telegramUpdate: 'delivery.telegram.update',
  pushKey: 'delivery.push.key',
  pushSubscribe: 'delivery.push.subscribe',
  pushUnsubscribe: 'delivery.push.unsubscribe',
  emailConfirm: 'delivery.email.confirm',
  emailUnsubscribe: 'delivery.email.unsubscribe',
  /** What the unsubscribe link's page shows (a GET changes nothing: scanners fetch links). */
  emailUnsubscribeView: 'delivery.email.unsubscribe-view',
} as const;
