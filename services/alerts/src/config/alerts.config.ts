import { baseConfigSchema, loadConfigOrExit, postgresUrl, type ServiceBaseConfig, serviceBaseConfig } from '@invest/platform/config/load-config';
import { z } from 'zod';
import { DEFAULT_NOTIFICATIONS_PER_USER } from '../notifications/notification.service.js';
import { DEFAULT_HEAP_GROWING_PERCENT } from '../runtime/heap-growth.js';

const positiveInt = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be an integer`).positive(`${name} must be > 0`);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** Environment of the alerts service; every variable is named when its value is bad. */
export const alertsEnvSchema = baseConfigSchema.extend({
  DATABASE_URL: postgresUrl.optional(),
  ALERTS_DATABASE_URL: postgresUrl.optional(),
  BUS_PREFIX: z.string().default(''),
  /** Rates older than this (by their provider time) never fire a notification. */
  ALERTS_MAX_RATE_AGE_MINUTES: positiveInt('ALERTS_MAX_RATE_AGE_MINUTES').default(60),
  /** How long an answer of billing.entitlements.get is reused (billing events drop it earlier). */
  ALERTS_ENTITLEMENTS_TTL_MS: positiveInt('ALERTS_ENTITLEMENTS_TTL_MS').default(30_000),
  ALERTS_JOBS_ENABLED: bool.default(true),
  /** Notifications one user may have, active or not (a 422 above it; the plan's active limit is apart). */
  ALERTS_MAX_PER_USER: positiveInt('ALERTS_MAX_PER_USER').default(DEFAULT_NOTIFICATIONS_PER_USER),
  RPC_TIMEOUT_MS: positiveInt('RPC_TIMEOUT_MS').default(3000),
  /** Old-generation growth between full collections, % of the live heap (0: V8's own factor); see runtime/heap-growth.ts. */
  ALERTS_HEAP_GROWING_PERCENT: z.coerce
    .number({ error: 'ALERTS_HEAP_GROWING_PERCENT must be a number' })
    .int('ALERTS_HEAP_GROWING_PERCENT must be an integer')
    .min(0, 'ALERTS_HEAP_GROWING_PERCENT must be >= 0')
    .max(1000, 'ALERTS_HEAP_GROWING_PERCENT must be <= 1000')
    .default(DEFAULT_HEAP_GROWING_PERCENT),
});
export type AlertsEnv = z.infer<typeof alertsEnvSchema>;

export interface AlertsConfig extends ServiceBaseConfig {
  marketTz: string;
  maxRateAgeMs: number;
  entitlementsTtlMs: number;
  jobsEnabled: boolean;
  rpcTimeoutMs: number;
  heapGrowingPercent: number;
  notificationsPerUser: number;
}

export function alertsConfigFrom(env: AlertsEnv): AlertsConfig {
  return {
    ...serviceBaseConfig('alerts', env),
    marketTz: env.MARKET_TZ,
    maxRateAgeMs: env.ALERTS_MAX_RATE_AGE_MINUTES * 60_000,
    entitlementsTtlMs: env.ALERTS_ENTITLEMENTS_TTL_MS,
    jobsEnabled: env.ALERTS_JOBS_ENABLED,
    rpcTimeoutMs: env.RPC_TIMEOUT_MS,
    heapGrowingPercent: env.ALERTS_HEAP_GROWING_PERCENT,
    notificationsPerUser: env.ALERTS_MAX_PER_USER,
  };
}

export function loadAlertsConfigOrExit(): AlertsConfig {
  return alertsConfigFrom(loadConfigOrExit(alertsEnvSchema, 'alerts'));
}
