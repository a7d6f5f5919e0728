import type { Logger } from '@invest/platform';
import { type MoexMarketSpec, issMarketPath } from './iss-market.parser.js';
import { type ProviderHttpOptions, ProviderClient } from './provider-http.js';

export const DEFAULT_MOEX_ISS_URL = 'https://iss.moex.com/iss';

/** MOEX ISS over HTTP: board/market securities and dividends. The base URL ends in `/iss` (`MOEX_ISS_URL`). */
export class MoexIssClient {
  private readonly http: ProviderClient;

  constructor(opts: { baseUrl?: string; logger?: Logger; http?: Partial<ProviderHttpOptions>; minIntervalMs?: number }) {
    this.http = new ProviderClient('moex-iss', opts.baseUrl ?? DEFAULT_MOEX_ISS_URL, {
      ...(opts.logger ? { logger: opts.logger } : {}),
      ...(opts.http ? { http: opts.http } : {}),
      minIntervalMs: opts.minIntervalMs ?? 200,
    });
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** `securities` + `marketdata` of one board (or of the market endpoint when `board` is null), optionally some SECIDs only. */
  market(spec: MoexMarketSpec, board: string | null, secids?: readonly string[], signal?: AbortSignal): Promise<unknown> {
    return this.http.get(issMarketPath(spec, board, secids), signal);
  }

  /** One page (100 rows from `start`) of a security's daily history on a board, from `from` on. */
  history(where: { engine: string; market: string; board: string; secid: string }, from: string, start = 0, signal?: AbortSignal): Promise<unknown> {
    const q = new URLSearchParams({ 'iss.meta': 'off', 'iss.only': 'history,history.cursor', from });
    if (start > 0) q.set('start', String(start));
    const path = ['engines', where.engine, 'markets', where.market, 'boards', where.board, 'securities'].map(encodeURIComponent).join('/');
    return this.http.get(`/history/${path}/${encodeURIComponent(where.secid)}.json?${q.toString()}`, signal);
  }

  /** One page of `/securities/{SECID}/dividends.json`. */
  dividends(secid: string, start = 0, signal?: AbortSignal): Promise<unknown> {
    const q = new URLSearchParams({ 'iss.meta': 'off', 'iss.only': 'dividends,dividends.cursor' });
    if (start > 0) q.set('start', String(start));
    return this.http.get(`/securities/${encodeURIComponent(secid)}/dividends.json?${q.toString()}`, signal);
  }
}
