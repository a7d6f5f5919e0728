import type { Db, Logger } from '@invest/platform';
import { CoinGeckoClient } from '../market-data/coingecko.client.js';
import { MoexIssClient } from '../market-data/moex-iss.client.js';

/** What the screener's jobs need; built once by the app (or the CLI) from configuration. */
export interface ScreenerJobDeps {
  db: Db;
  logger: Logger;
  /** Time zone of the market day (daily closes, the 01:45 schedule). */
  marketTz: string;
  moex: MoexIssClient;
  coingecko: CoinGeckoClient;
  /** CoinGecko ids refreshed every minute by `command:GetMainCoinsRates`. */
  mainCoins: readonly string[];
  /** Aborted when the service stops: provider calls and backoff waits end early. */
  signal?: AbortSignal;
}

/** Provider settings of the configuration (the part of ScreenerConfig the jobs read). */
export interface ProviderSettings {
  MOEX_ISS_URL: string;
  MOEX_ISS_MIN_INTERVAL_MS: number;
  COINGECKO_URL: string;
  COINGECKO_API_KEY?: string | undefined;
  MAIN_COINS: readonly string[];
  PROVIDER_TIMEOUT_MS: number;
  PROVIDER_RETRIES: number;
  PROVIDER_BACKOFF_MS: number;
}

/** Builds the job dependencies from configuration. */
export function createJobDeps(opts: { db: Db; logger: Logger; marketTz: string; providers: ProviderSettings; signal?: AbortSignal }): ScreenerJobDeps {
  const p = opts.providers;
  const http = { timeoutMs: p.PROVIDER_TIMEOUT_MS, retries: p.PROVIDER_RETRIES, backoffMs: p.PROVIDER_BACKOFF_MS };
  return {
    db: opts.db,
    logger: opts.logger,
    marketTz: opts.marketTz,
    moex: new MoexIssClient({ baseUrl: p.MOEX_ISS_URL, logger: opts.logger, http, minIntervalMs: p.MOEX_ISS_MIN_INTERVAL_MS }),
    coingecko: new CoinGeckoClient({ baseUrl: p.COINGECKO_URL, logger: opts.logger, http, ...(p.COINGECKO_API_KEY ? { apiKey: p.COINGECKO_API_KEY } : {}) }),
    mainCoins: p.MAIN_COINS,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
}
