import { isTimeZone } from '@invest/contracts';
import { z } from 'zod';
import { natsServers } from '../messaging/nats-connection.js';
import type { MetricsSettings } from '../metrics/metrics-server.js';

/** Variables every service reads. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** One NATS URL, or the comma-separated nodes of a cluster (clients fail over between them). */
  NATS_URL: z
    .string()
    .default('nats://127.0.0.1:4222')
    .refine((v) => natsServers(v).length > 0 && natsServers(v).every((u) => /^((nats|tls|ws|wss):\/\/)?[^\s/,]+(:\d+)?$/.test(u)), 'must be nats:// URLs separated by commas'),
  /** Replicas of every JetStream stream the services create or update (3 in a three-node cluster). */
  JETSTREAM_REPLICAS: z.coerce
    .number({ error: 'JETSTREAM_REPLICAS must be a number' })
    .int('JETSTREAM_REPLICAS must be an integer')
    .min(1, 'JETSTREAM_REPLICAS must be 1 to 5')
    .max(5, 'JETSTREAM_REPLICAS must be 1 to 5')
    .default(1),
  MARKET_TZ: z
    .string()
    .default('Europe/Moscow')
    .refine(isTimeZone, 'must be an IANA time zone'),
  /** Port of GET /metrics (Prometheus); unset, no metrics server. 0 takes any free port. */
  METRICS_PORT: z.coerce.number({ error: 'METRICS_PORT must be a port number' }).int('METRICS_PORT must be an integer').min(0).max(65535).optional(),
  /** How often each durable consumer samples its lag. */
  CONSUMER_LAG_SAMPLE_MS: z.coerce.number({ error: 'CONSUMER_LAG_SAMPLE_MS must be a number' }).int('CONSUMER_LAG_SAMPLE_MS must be an integer').min(100, 'CONSUMER_LAG_SAMPLE_MS must be >= 100').default(10_000),
  /** A consumer whose lag has not shrunk while it processed nothing for this long makes the health ping (and /ready) fail. */
  CONSUMER_STUCK_AFTER_SECONDS: z.coerce
    .number({ error: 'CONSUMER_STUCK_AFTER_SECONDS must be a number' })
    .positive('CONSUMER_STUCK_AFTER_SECONDS must be > 0')
    .default(120),
});

/** The metrics and consumer health settings of a parsed environment. */
export function metricsSettingsFrom(env: z.infer<typeof baseConfigSchema>): MetricsSettings {
  return {
    ...(env.METRICS_PORT !== undefined ? { port: env.METRICS_PORT } : {}),
    // Scraped from outside the pod in production; only from this machine otherwise.
    host: env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1',
    consumerLagSampleMs: env.CONSUMER_LAG_SAMPLE_MS,
    consumerStuckAfterMs: Math.round(env.CONSUMER_STUCK_AFTER_SECONDS * 1000),
  };
}

/** A Postgres URL: `postgres://user@host:port/db`. */
export const postgresUrl = z
  .string()
  .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// URL');

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration: ${issues.join('; ')}`);
  }
}

/**
 * Validates the environment against a schema. Every bad value is named by its variable.
 * Throws ConfigError; `loadConfigOrExit` is the start-up variant that exits non-zero.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  // Empty strings mean "unset", as they do for most twelve-factor tooling.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  return result.data;
}

/** Start-up variant of loadConfig: prints what is wrong and exits with status 78 (EX_CONFIG). */
export function loadConfigOrExit<S extends z.ZodType>(schema: S, service: string): z.infer<S> {
  try {
    return loadConfig(schema);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(
        JSON.stringify({ level: 'fatal', service, msg: err.message, issues: err.issues, time: new Date().toISOString() }) + '\n',
      );
      process.exit(78);
    }
    throw err;
  }
}

/**
 * The database URL of one service: `<SERVICE>_DATABASE_URL` if set, else the server of `DATABASE_URL`
 * (default local Postgres) with the database `invest_<service>`. Each service owns its own database.
 */
export function serviceDatabaseUrl(service: string, env: Record<string, string | undefined> = process.env): string {
  const own = env[`${service.toUpperCase()}_DATABASE_URL`];
  if (own) return own;
  const base = new URL(env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  base.pathname = `/invest_${service}`;
  return base.toString();
}

/** What every service with its own database and the bus is configured with. */
export interface ServiceBaseConfig {
  databaseUrl: string;
  natsUrl: string;
  /** `JETSTREAM_REPLICAS`: replicas of the streams this service creates or updates. */
  jetstreamReplicas: number;
  busPrefix: string;
  logLevel: string;
  /** `METRICS_PORT` and the consumer health settings, for `startServiceMetrics`. */
  metrics: MetricsSettings;
}

/** The `ServiceBaseConfig` of one service from its parsed environment (its database: see `serviceDatabaseUrl`). */
export function serviceBaseConfig(
  service: string,
  env: z.infer<typeof baseConfigSchema> & { BUS_PREFIX: string; DATABASE_URL?: string | undefined } & Record<string, unknown>,
): ServiceBaseConfig {
  const own = `${service.toUpperCase()}_DATABASE_URL`;
  return {
    databaseUrl: serviceDatabaseUrl(service, { DATABASE_URL: env.DATABASE_URL, [own]: env[own] as string | undefined }),
    natsUrl: env.NATS_URL,
    jetstreamReplicas: env.JETSTREAM_REPLICAS,
    busPrefix: env.BUS_PREFIX,
    logLevel: env.LOG_LEVEL,
    metrics: metricsSettingsFrom(env),
  };
}
