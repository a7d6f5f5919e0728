import { baseConfigSchema, loadConfigOrExit, postgresUrl, type ServiceBaseConfig, serviceBaseConfig } from '@invest/platform/config/load-config';
import { z } from 'zod';
import type { SmtpConfig } from '../email/smtp.client.js';
import { checkPushEnv, type PushConfig, pushConfigFrom } from '../push/push.config.js';
import { isP256PrivateKey, isP256PublicKey, isVapidSubject } from '../push/vapid-keys.js';

const positiveInt = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be an integer`).positive(`${name} must be > 0`);

/** Environment of the delivery service; every variable is named when its value is bad. Channels add theirs. */
export const deliveryEnvSchema = baseConfigSchema.extend({
  DATABASE_URL: postgresUrl.optional(),
  DELIVERY_DATABASE_URL: postgresUrl.optional(),
  BUS_PREFIX: z.string().default(''),
  /** Where the web client is, for links in messages (`<url>/notifications`). */
  PUBLIC_BASE_URL: z.string().url('PUBLIC_BASE_URL must be a URL').default('http://localhost:3000'),
  /** Firings of one user within this window after the first go out as one message per channel (at most 30 s). */
  DELIVERY_GROUP_WINDOW_MS: positiveInt('DELIVERY_GROUP_WINDOW_MS').max(30_000, 'DELIVERY_GROUP_WINDOW_MS must be at most 30000').default(3_000),
  /**
   * A user's message goes out this long after the last firing of its move (a rate batch's firings come within
   * milliseconds), within DELIVERY_GROUP_WINDOW_MS of the first.
   */
  DELIVERY_GROUP_SETTLE_MS: positiveInt('DELIVERY_GROUP_SETTLE_MS').max(30_000, 'DELIVERY_GROUP_SETTLE_MS must be at most 30000').default(100),
  /** How often due messages are looked for (they are also sent as soon as a group is sealed here). */
  DELIVERY_POLL_MS: positiveInt('DELIVERY_POLL_MS').default(1_000),
  /** Sent (or given up) messages, with their firings, are deleted this many days after their group was sealed. */
  DELIVERY_RETENTION_DAYS: positiveInt('DELIVERY_RETENTION_DAYS').max(3650, 'DELIVERY_RETENTION_DAYS must be at most 3650').default(30),
  /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`; unset: the e-mail channel is off. */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'SMTP_URL must be an smtp:// or smtps:// URL' }).optional(),
  /** The From of every mail. */
  SMTP_FROM: z
    .string()
    .regex(/^([^<>]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/, 'SMTP_FROM must be an address, optionally with a name: Name <user@example.org>')
    .default('Invest tracker <noreply@localhost>'),
  /** Web push key pair (`npx web-push generate-vapid-keys`). Unset: generated once and kept (development), no web push (production). */
  VAPID_PUBLIC_KEY: z.string().refine(isP256PublicKey, 'VAPID_PUBLIC_KEY must be a base64url P-256 public key (65 bytes), as web-push generate-vapid-keys prints it').optional(),
  VAPID_PRIVATE_KEY: z.string().refine(isP256PrivateKey, 'VAPID_PRIVATE_KEY must be a base64url P-256 private key (32 bytes)').optional(),
  /** How push services reach whoever runs this server: `mailto:` or `https:`; required in production with the keys. */
  VAPID_SUBJECT: z.string().refine(isVapidSubject, 'VAPID_SUBJECT must be a mailto: address or an https: URL').optional(),
  /** PEM of one more CA the push sender trusts: the local push service's (`npm start`, tests). Refused in production. */
  WEB_PUSH_TEST_CA: z.string().refine((v) => v.includes('-----BEGIN CERTIFICATE-----'), 'WEB_PUSH_TEST_CA must be a PEM certificate').optional(),
  /** Telegram Bot API root (a local stand-in in development). */
  TELEGRAM_API_URL: z.url({ protocol: /^https?$/, error: 'TELEGRAM_API_URL must be an http(s) URL' }).default('https://api.telegram.org'),
  /** The bot's token from @BotFather; unset: the Telegram channel is off. */
  TELEGRAM_BOT_TOKEN: z.string().regex(/^\d+:[\w-]+$/, 'TELEGRAM_BOT_TOKEN must look like 123456:ABC-DEF…').optional(),
  /** Sent by Telegram with every webhook call (setWebhook's secret_token); required with a token. */
  TELEGRAM_WEBHOOK_SECRET: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, 'TELEGRAM_WEBHOOK_SECRET must be 16-256 characters of A-Z a-z 0-9 _ -').optional(),
  TELEGRAM_TIMEOUT_MS: positiveInt('TELEGRAM_TIMEOUT_MS').default(10_000),
  /** Messages a second over all chats (Telegram: about 30; more for a bot with paid broadcasts). */
  TELEGRAM_MAX_PER_SECOND: positiveInt('TELEGRAM_MAX_PER_SECOND').max(1000, 'TELEGRAM_MAX_PER_SECOND must be at most 1000').default(30),
}).superRefine((env, ctx) => {
  if (env.TELEGRAM_BOT_TOKEN && !env.TELEGRAM_WEBHOOK_SECRET) {
    ctx.addIssue({ code: 'custom', path: ['TELEGRAM_WEBHOOK_SECRET'], message: 'TELEGRAM_WEBHOOK_SECRET is required when TELEGRAM_BOT_TOKEN is set' });
  }
}).superRefine(checkPushEnv);
export type DeliveryEnv = z.infer<typeof deliveryEnvSchema>;

export interface DeliveryConfig extends ServiceBaseConfig {
  publicBaseUrl: string;
  groupWindowMs: number;
  groupSettleMs: number;
  pollMs: number;
  retentionDays: number;
  telegramPacing: { perSecond: number };
  /** Absent: the e-mail channel is off (no SMTP_URL). */
  smtp?: SmtpConfig;
  push: PushConfig;
  /** Absent: the Telegram channel is off (no TELEGRAM_BOT_TOKEN). */
  telegram?: TelegramConfig;
}

export interface TelegramConfig {
  apiUrl: string;
  botToken: string;
  webhookSecret: string;
  timeoutMs: number;
}

export function deliveryConfigFrom(env: DeliveryEnv): DeliveryConfig {
  return {
    ...serviceBaseConfig('delivery', env),
    publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    groupWindowMs: env.DELIVERY_GROUP_WINDOW_MS,
    groupSettleMs: Math.min(env.DELIVERY_GROUP_SETTLE_MS, env.DELIVERY_GROUP_WINDOW_MS),
    telegramPacing: { perSecond: env.TELEGRAM_MAX_PER_SECOND },
    pollMs: env.DELIVERY_POLL_MS,
    retentionDays: env.DELIVERY_RETENTION_DAYS,
    ...(env.SMTP_URL ? { smtp: { url: env.SMTP_URL, from: env.SMTP_FROM } } : {}),
    push: pushConfigFrom(env),
    ...(env.TELEGRAM_BOT_TOKEN && env.TELEGRAM_WEBHOOK_SECRET
      ? { telegram: { apiUrl: env.TELEGRAM_API_URL.replace(/\/+$/, ''), botToken: env.TELEGRAM_BOT_TOKEN, webhookSecret: env.TELEGRAM_WEBHOOK_SECRET, timeoutMs: env.TELEGRAM_TIMEOUT_MS } }
      : {}),
  };
}

export function loadDeliveryConfigOrExit(): DeliveryConfig {
  return deliveryConfigFrom(loadConfigOrExit(deliveryEnvSchema, 'delivery'));
}
