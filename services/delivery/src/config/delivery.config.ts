import { baseConfigSchema, loadConfigOrExit, postgresUrl, type ServiceBaseConfig, serviceBaseConfig } from '@invest/platform';
import { z } from 'zod';

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
  /** How often due messages are looked for (they are also sent as soon as a group is sealed here). */
  DELIVERY_POLL_MS: positiveInt('DELIVERY_POLL_MS').default(1_000),
});
export type DeliveryEnv = z.infer<typeof deliveryEnvSchema>;

export interface DeliveryConfig extends ServiceBaseConfig {
  publicBaseUrl: string;
  groupWindowMs: number;
  pollMs: number;
}

export function deliveryConfigFrom(env: DeliveryEnv): DeliveryConfig {
  return {
    ...serviceBaseConfig('delivery', env),
    publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    groupWindowMs: env.DELIVERY_GROUP_WINDOW_MS,
    pollMs: env.DELIVERY_POLL_MS,
  };
}

export function loadDeliveryConfigOrExit(): DeliveryConfig {
  return deliveryConfigFrom(loadConfigOrExit(deliveryEnvSchema, 'delivery'));
}
