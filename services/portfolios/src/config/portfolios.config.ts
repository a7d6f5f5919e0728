import { DEFAULT_LIMITS, type PortfoliosLimits } from '../common/limits.js';
import { baseConfigSchema, loadConfigOrExit, postgresUrl, type ServiceBaseConfig, serviceBaseConfig } from '@invest/platform';
import { z } from 'zod';

const positiveInt = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be an integer`).positive(`${name} must be > 0`);

/** Environment of the portfolios service; every variable is named when its value is bad. */
export const portfoliosEnvSchema = baseConfigSchema.extend({
  DATABASE_URL: postgresUrl.optional(),
  PORTFOLIOS_DATABASE_URL: postgresUrl.optional(),
  BUS_PREFIX: z.string().default(''),
  RPC_TIMEOUT_MS: positiveInt('RPC_TIMEOUT_MS').default(3000),
  STATISTICS_HYDRATED_TTL_SECONDS: positiveInt('STATISTICS_HYDRATED_TTL_SECONDS').default(50),
  STATISTICS_STATE_TTL_SECONDS: positiveInt('STATISTICS_STATE_TTL_SECONDS').default(7 * 24 * 3600),
  PORTFOLIOS_MAX_PER_USER: positiveInt('PORTFOLIOS_MAX_PER_USER').default(DEFAULT_LIMITS.portfoliosPerUser),
  DEALS_MAX_PER_PORTFOLIO: positiveInt('DEALS_MAX_PER_PORTFOLIO').default(DEFAULT_LIMITS.dealsPerPortfolio),
  WATCHLISTS_MAX_PER_USER: positiveInt('WATCHLISTS_MAX_PER_USER').default(DEFAULT_LIMITS.watchlistsPerUser),
  WATCHLIST_ITEMS_MAX: positiveInt('WATCHLIST_ITEMS_MAX').default(DEFAULT_LIMITS.itemsPerWatchlist),
});

export interface PortfoliosConfig extends ServiceBaseConfig {
  rpcTimeoutMs: number;
  cacheTtl: { hydratedSeconds: number; stateSeconds: number };
  limits: PortfoliosLimits;
}

export function loadPortfoliosConfigOrExit(): PortfoliosConfig {
  const env = loadConfigOrExit(portfoliosEnvSchema, 'portfolios');
  return {
    ...serviceBaseConfig('portfolios', env),
    rpcTimeoutMs: env.RPC_TIMEOUT_MS,
    cacheTtl: { hydratedSeconds: env.STATISTICS_HYDRATED_TTL_SECONDS, stateSeconds: env.STATISTICS_STATE_TTL_SECONDS },
    limits: {
      portfoliosPerUser: env.PORTFOLIOS_MAX_PER_USER,
      dealsPerPortfolio: env.DEALS_MAX_PER_PORTFOLIO,
      watchlistsPerUser: env.WATCHLISTS_MAX_PER_USER,
      itemsPerWatchlist: env.WATCHLIST_ITEMS_MAX,
    },
  };
}
