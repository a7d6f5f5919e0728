import { baseConfigSchema, loadConfig, loadConfigOrExit, metricsSettingsFrom } from '@invest/platform/config/load-config';
import type { MetricsSettings } from '@invest/platform/metrics/metrics-server';
import { z } from 'zod';
import { DEFAULT_MAX_TOKEN_TTL, parseDurationSeconds } from '../auth/token-rules.js';
import { DEFAULT_WEB_DIST_DIR } from '../web/web-static.js';

/**
 * Development-only HS256 secret, so `npm start` and `npm run token` work without any setup.
 * Refused when NODE_ENV=production.
 */
/** CloudPayments' payment widget script (reference: the widget's `invoiceId`, `accountId`, `data`). */
export const DEFAULT_WIDGET_URL = 'https://widget.cloudpayments.ru/bundles/cloudpayments.js';

export const DEV_JWT_SECRET = 'invest-dev-secret-change-me-0123456789abcdef';

const positiveInt = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be an integer`).positive(`${name} must be > 0`);

/** Environment of the gateway; every variable is named when its value is bad. */
/** Live notification (or chat answer) streams one user may hold on one gateway instance: tabs and devices, not an unbounded number. */
export const DEFAULT_STREAMS_PER_USER = 10;

export const gatewayEnvSchema = baseConfigSchema
  .extend({
    PORT: z.coerce.number({ error: 'must be a port number' }).int('must be an integer').min(0).max(65535).default(3000),
    // The default depends on NODE_ENV (see toGatewayConfig): loopback outside production.
    HOST: z.string().min(1).optional(),
    AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters (HS256 key)').optional(),
    AUTH_JWKS_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    AUTH_ISSUER: z.string().trim().min(1, 'must not be empty').optional(),
    AUTH_AUDIENCE: z.string().trim().min(1, 'must not be empty').optional(),
    AUTH_MAX_TOKEN_TTL: z
      .string()
      .default(DEFAULT_MAX_TOKEN_TTL)
      .transform((v, ctx) => {
        const seconds = parseDurationSeconds(v);
        if (!seconds) {
          ctx.addIssue({ code: 'custom', message: 'must be a positive duration: seconds (86400) or 30m, 12h, 30d, 2w' });
          return z.NEVER;
        }
        return seconds;
      }),
    RPC_TIMEOUT_MS: positiveInt('RPC_TIMEOUT_MS').default(3000),
    READY_TIMEOUT_MS: positiveInt('READY_TIMEOUT_MS').default(1000),
    READY_SERVICES: z
      .string()
      .default('screener,portfolios')
      .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
      .pipe(z.array(z.string().regex(/^[a-z][a-z0-9_-]*$/, 'must be a comma list of service names'))),
    BUS_PREFIX: z.string().default(''),
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    BODY_LIMIT_BYTES: positiveInt('BODY_LIMIT_BYTES').default(1_048_576),
    CHAT_HEARTBEAT_MS: positiveInt('CHAT_HEARTBEAT_MS').default(15_000),
    CHAT_STREAM_MAX_PER_USER: positiveInt('CHAT_STREAM_MAX_PER_USER').default(DEFAULT_STREAMS_PER_USER),
    HTTP_HEADERS_TIMEOUT_MS: positiveInt('HTTP_HEADERS_TIMEOUT_MS').default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: positiveInt('HTTP_REQUEST_TIMEOUT_MS').default(30_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt('HTTP_KEEP_ALIVE_TIMEOUT_MS').default(5_000),
    HTTP_MAX_CONNECTIONS: positiveInt('HTTP_MAX_CONNECTIONS').default(1_000),
    NOTIFICATION_STREAM_POLL_MS: positiveInt('NOTIFICATION_STREAM_POLL_MS').default(15_000),
    NOTIFICATION_STREAM_HEARTBEAT_MS: positiveInt('NOTIFICATION_STREAM_HEARTBEAT_MS').default(15_000),
    NOTIFICATION_STREAM_MAX_PER_USER: positiveInt('NOTIFICATION_STREAM_MAX_PER_USER').default(DEFAULT_STREAMS_PER_USER),
    // Empty: no web client (API only).
    WEB_DIST_DIR: z.string().default(DEFAULT_WEB_DIST_DIR),
    CLOUDPAYMENTS_PUBLIC_ID: z.string().min(1).default('pk_dev_public_id'),
    // The payment widget's script: the provider's, or (development) the local provider's stand-in.
    CLOUDPAYMENTS_WIDGET_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default(DEFAULT_WIDGET_URL),
    SCREENER_PUBLIC_CACHE_TTL_MS: z.coerce
      .number({ error: 'SCREENER_PUBLIC_CACHE_TTL_MS must be a number' })
      .int('SCREENER_PUBLIC_CACHE_TTL_MS must be an integer')
      .min(0, 'SCREENER_PUBLIC_CACHE_TTL_MS must be >= 0')
      .default(10_000),
    SCREENER_PUBLIC_CACHE_MAX_ENTRIES: positiveInt('SCREENER_PUBLIC_CACHE_MAX_ENTRIES').default(1000),
    SCREENER_PUBLIC_CACHE_MAX_BYTES: positiveInt('SCREENER_PUBLIC_CACHE_MAX_BYTES').default(32 * 1024 * 1024),
    // What Telegram sends in X-Telegram-Bot-Api-Secret-Token (delivery's setWebhook); unset: every webhook call is a 401.
    TELEGRAM_WEBHOOK_SECRET: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, 'must be 16-256 characters of A-Z a-z 0-9 _ -').optional(),
  })
  .superRefine((env, ctx) => {
    // Node refuses a headers timeout longer than the whole-request timeout.
    if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'must not be greater than HTTP_REQUEST_TIMEOUT_MS' });
    }
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV !== 'production') return;
    if (!env.AUTH_JWT_SECRET && !env.AUTH_JWKS_URL) {
      ctx.addIssue({ code: 'custom', path: ['AUTH_JWT_SECRET'], message: 'is required in production unless AUTH_JWKS_URL is set' });
    }
    if (env.AUTH_JWT_SECRET === DEV_JWT_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['AUTH_JWT_SECRET'], message: 'must not be the development default in production' });
    }
    // An http script on an https page is blocked (mixed content), and one anybody on the way could change.
    if (!env.CLOUDPAYMENTS_WIDGET_URL.startsWith('https:')) {
      ctx.addIssue({ code: 'custom', path: ['CLOUDPAYMENTS_WIDGET_URL'], message: 'must be an https URL in production' });
    }
  });

export interface AuthConfig {
  /** HS256 key; absent when only RS256 (JWKS) tokens are accepted. */
  jwtSecret?: string;
  /** JWKS endpoint for RS256 tokens. */
  jwksUrl?: string;
  /** Longest lifetime a token may claim, in seconds (`exp - iat`, or `exp - now` without `iat`); default 30 days. */
  maxTokenTtlS?: number;
  /** When set, a token's `iss` must be this (an identity provider shared with other applications signs tokens for them too). */
  issuer?: string;
  /** When set, a token's `aud` must name this. */
  audience?: string;
}

/** What `createGatewayApp` needs; `loadGatewayConfig` builds it from the environment. */
export interface GatewayConfig {
  port: number;
  host: string;
  natsUrl: string;
  busPrefix: string;
  logLevel: string;
  /** `METRICS_PORT` (GET /metrics on a port of its own). */
  metrics: MetricsSettings;
  auth: AuthConfig;
  rpcTimeoutMs: number;
  readyServices: string[];
  readyTimeoutMs: number;
  /** When set, paging links are absolute URLs on this base; otherwise path URLs. */
  publicBaseUrl?: string;
  bodyLimitBytes: number;
  /** SSE `/api/notification-events/stream`: how often the alerts inbox is read as the backstop of live firings, and the heartbeat interval. */
  /** `maxPerUser`: live streams one user may hold on this gateway instance (default DEFAULT_STREAMS_PER_USER). */
  notificationStream: { pollMs: number; heartbeatMs: number; maxPerUser?: number };
  /** SSE comment sent on a chat stream after this much silence, so proxies keep the connection open. */
  chatHeartbeatMs: number;
  /** Live answer streams (sends and resumes) one user may hold on this gateway instance; a resume beyond it is a 429. */
  chatStreamMaxPerUser: number;
  /** Slow-client limits of the HTTP server (see README, Configuration). */
  http: HttpServerLimits;
  /** The built web client served at `/` (empty: none). */
  webDistDir: string;
  /** Development-only routes (`/api/dev/*`: a token form); never in production. */
  devRoutes: boolean;
  /** What the web client's payment widget needs: the CloudPayments public id and the widget's script. */
  payments: { publicId: string; widgetUrl: string };
  /** The public screener's page cache (see PublicPageCache). */
  publicScreenerCache: PublicScreenerCacheConfig;
  /** `TELEGRAM_WEBHOOK_SECRET`: the Telegram webhook's secret header must equal it (absent: no call is accepted). */
  telegramWebhookSecret?: string;
}

/** How long and how much of the public screener the gateway keeps in memory. */
export interface PublicScreenerCacheConfig {
  /** How long a public page may be reused (by the gateway unless rates change first, and as `Cache-Control: max-age`); 0 keeps nothing. */
  ttlMs: number;
  /** Most pages kept. */
  maxEntries: number;
  /** Most bytes of page JSON kept. */
  maxBytes: number;
}

/** How long a client may take and how many connections it may hold: what stops a slowloris. */
export interface HttpServerLimits {
  /** Time to receive the request line and headers; 408 after it. */
  headersTimeoutMs: number;
  /** Time to receive the whole request, body included; 408 after it. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Open connections beyond this are closed as they arrive. */
  maxConnections: number;
}

export function toGatewayConfig(env: z.infer<typeof gatewayEnvSchema>): GatewayConfig {
  // Outside production a missing secret falls back to the documented development default,
  // unless the deployment only trusts a JWKS.
  const jwtSecret = env.AUTH_JWT_SECRET ?? (env.NODE_ENV !== 'production' && !env.AUTH_JWKS_URL ? DEV_JWT_SECRET : undefined);
  return {
    port: env.PORT,
    host: env.HOST ?? (env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1'),
    natsUrl: env.NATS_URL,
    busPrefix: env.BUS_PREFIX,
    logLevel: env.LOG_LEVEL,
    metrics: metricsSettingsFrom(env),
    auth: {
      ...(jwtSecret ? { jwtSecret } : {}),
      ...(env.AUTH_JWKS_URL ? { jwksUrl: env.AUTH_JWKS_URL } : {}),
      maxTokenTtlS: env.AUTH_MAX_TOKEN_TTL,
      ...(env.AUTH_ISSUER ? { issuer: env.AUTH_ISSUER } : {}),
      ...(env.AUTH_AUDIENCE ? { audience: env.AUTH_AUDIENCE } : {}),
    },
    rpcTimeoutMs: env.RPC_TIMEOUT_MS,
    readyServices: env.READY_SERVICES,
    readyTimeoutMs: env.READY_TIMEOUT_MS,
    ...(env.PUBLIC_BASE_URL ? { publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/+$/, '') } : {}),
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    chatHeartbeatMs: env.CHAT_HEARTBEAT_MS,
    chatStreamMaxPerUser: env.CHAT_STREAM_MAX_PER_USER,
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: env.HTTP_MAX_CONNECTIONS,
    },
    notificationStream: { pollMs: env.NOTIFICATION_STREAM_POLL_MS, heartbeatMs: env.NOTIFICATION_STREAM_HEARTBEAT_MS, maxPerUser: env.NOTIFICATION_STREAM_MAX_PER_USER },
    webDistDir: env.WEB_DIST_DIR,
    devRoutes: env.NODE_ENV !== 'production',
    payments: { publicId: env.CLOUDPAYMENTS_PUBLIC_ID, widgetUrl: env.CLOUDPAYMENTS_WIDGET_URL },
    publicScreenerCache: {
      ttlMs: env.SCREENER_PUBLIC_CACHE_TTL_MS,
      maxEntries: env.SCREENER_PUBLIC_CACHE_MAX_ENTRIES,
      maxBytes: env.SCREENER_PUBLIC_CACHE_MAX_BYTES,
    },
    ...(env.TELEGRAM_WEBHOOK_SECRET ? { telegramWebhookSecret: env.TELEGRAM_WEBHOOK_SECRET } : {}),
  };
}

/** Reads the gateway configuration; throws ConfigError naming each bad variable. */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return toGatewayConfig(loadConfig(gatewayEnvSchema, env));
}

/** Start-up variant: prints what is wrong and exits non-zero. */
export function loadGatewayConfigOrExit(): GatewayConfig {
  return toGatewayConfig(loadConfigOrExit(gatewayEnvSchema, 'gateway'));
}
