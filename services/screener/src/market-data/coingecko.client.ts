import type { Logger } from '@invest/platform';
import { type ProviderHttpOptions, ProviderClient } from './provider-http.js';

export const DEFAULT_COINGECKO_URL = 'https://api.coingecko.com/api/v3';
/** CoinGecko's page size limit for coins/markets. */
export const COINGECKO_PAGE = 250;

/** CoinGecko-style `coins/markets` (`COINGECKO_URL`; `COINGECKO_API_KEY` goes in `x-cg-demo-api-key`). */
export class CoinGeckoClient {
  private readonly http: ProviderClient;

  constructor(opts: { baseUrl?: string; apiKey?: string; logger?: Logger; http?: Partial<ProviderHttpOptions>; minIntervalMs?: number }) {
    this.http = new ProviderClient('coingecko', opts.baseUrl ?? DEFAULT_COINGECKO_URL, {
      ...(opts.logger ? { logger: opts.logger } : {}),
      ...(opts.http ? { http: opts.http } : {}),
      minIntervalMs: opts.minIntervalMs ?? 0,
      ...(opts.apiKey ? { headers: { 'x-cg-demo-api-key': opts.apiKey } } : {}),
    });
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** Market data of up to 250 coins by id, in USD, with 24h and 7d changes. */
  markets(ids: readonly string[], signal?: AbortSignal): Promise<unknown> {
    if (ids.length > COINGECKO_PAGE) throw new Error(`at most ${COINGECKO_PAGE} ids per request`);
    const q = new URLSearchParams({
      vs_currency: 'usd',
      ids: ids.join(','),
      order: 'market_cap_desc',
      per_page: String(COINGECKO_PAGE),
      page: '1',
      sparkline: 'false',
      price_change_percentage: '24h,7d',
    });
    return this.http.get(`/coins/markets?${q.toString()}`, signal);
  }
}
