import { baseConfigSchema } from '@invest/platform/config/load-config';
import { z } from 'zod';
import { DEFAULT_COINGECKO_URL } from './market-data/coingecko.client.js';
import { DEFAULT_MOEX_ISS_URL } from './market-data/moex-iss.client.js';

const booleanFlag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], { error: 'must be true or false' }))
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const positiveInt = z.coerce.number({ error: 'must be a number' }).int('must be an integer').min(0, 'must be 0 or more');

/** Main coins by default: the largest by market capitalisation, stablecoins included (CoinGecko ids). */
export const DEFAULT_MAIN_COINS = ['bitcoin', 'ethereum', 'tether', 'usd-coin', 'binancecoin', 'ripple', 'solana', 'the-open-network', 'tron', 'dogecoin'];

/** Environment of the screener service. The database URL comes from `serviceDatabaseUrl('screener')`. */
export const screenerConfigSchema = baseConfigSchema.extend({
  BUS_PREFIX: z.string().default(''),
  /** Load the demo shares and dividends on first start. */
  DEMO_DATA: booleanFlag.default(true),
  /** Run the rate, stats and dividends jobs on their schedules in this process. */
  JOBS_ENABLED: booleanFlag.default(true),
  /** MOEX ISS base URL, ending in `/iss`. */
  MOEX_ISS_URL: httpUrl.default(DEFAULT_MOEX_ISS_URL),
  /** Minimum pause between two ISS requests (ISS publishes no limit; throttle yourself). */
  MOEX_ISS_MIN_INTERVAL_MS: positiveInt.default(200),
  /** CoinGecko-style API base URL (`…/api/v3`). */
  COINGECKO_URL: httpUrl.default(DEFAULT_COINGECKO_URL),
  /** Sent as `x-cg-demo-api-key` when set. */
  COINGECKO_API_KEY: z.string().trim().min(1).optional(),
  /** CoinGecko ids refreshed every minute by `command:GetMainCoinsRates`, comma-separated. */
  MAIN_COINS: z
    .string()
    .transform((v) => [...new Set(v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean))])
    .pipe(z.array(z.string().regex(/^[a-z0-9-]+$/, 'must be CoinGecko ids (a-z, 0-9, -)')).min(1, 'must name at least one coin'))
    .default(DEFAULT_MAIN_COINS),
  /** Provider calls: timeout per attempt, retries (403/429/5xx, timeouts, network) and the first backoff (doubling). */
  PROVIDER_TIMEOUT_MS: positiveInt.min(1, 'must be at least 1').default(10_000),
  PROVIDER_RETRIES: positiveInt.max(10, 'must be at most 10').default(3),
  PROVIDER_BACKOFF_MS: positiveInt.default(500),
  /** How long a screener page may be served from memory; MOEX data is ~15 minutes delayed anyway. 0 = only share concurrent identical queries. */
  SCREENER_CACHE_TTL_MS: positiveInt.max(60_000, 'must be at most 60000').default(1000),
  /** Custom assets one user may have; creating one more is a 422. */
  CUSTOM_ASSETS_MAX_PER_USER: positiveInt.min(1, 'must be at least 1').default(200),
});
export type ScreenerConfig = z.infer<typeof screenerConfigSchema>;
