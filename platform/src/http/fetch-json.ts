import { setTimeout as sleepFor } from 'node:timers/promises';
import pRetry from 'p-retry';
import type { Logger } from '../logging/logger.js';

/** Why a provider call failed, in words an operator understands from the log line alone. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly reason: 'timeout' | 'network' | 'http' | 'throttled' | 'not_json' | 'bad_payload',
    message: string,
    readonly status?: number,
  ) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderError';
  }
  get retryable(): boolean {
    return this.reason === 'timeout' || this.reason === 'network' || this.reason === 'throttled' || (this.status ?? 0) >= 500;
  }
}

export interface FetchJsonOptions {
  /** Provider name for logs and errors, e.g. `moex-iss`. */
  provider: string;
  logger?: Logger;
  timeoutMs?: number;
  /** Attempts after the first, for retryable failures (timeouts, network, 403/429 throttling, 5xx). */
  retries?: number;
  /** First backoff; doubles each attempt (a Retry-After header wins). */
  backoffMs?: number;
  /** Shortest wait before a retry, whatever the backoff or Retry-After says (a provider's minimum request spacing). */
  minRetryWaitMs?: number;
  init?: RequestInit;
  signal?: AbortSignal;
  /** `JSON.parse`'s reviver for the body (its third argument, `context.source`, is a number's text as sent). */
  reviver?: (key: string, value: unknown, context?: { source?: string }) => unknown;
}

/**
 * GETs (or sends) JSON from an outside provider with a timeout, retries with exponential backoff on
 * throttling (403/429), 5xx, timeouts and network errors, and a clear error when the body is not JSON
 * (some providers answer HTML with status 200).
 */
export async function fetchJson<T = unknown>(url: string, opts: FetchJsonOptions): Promise<T> {
  const retries = opts.retries ?? 3;
  const backoffMs = opts.backoffMs ?? 500;
  const minWait = opts.minRetryWaitMs ?? 0;
  let attempts = 0;
  try {
    return await pRetry(
      async () => {
        attempts++;
        try {
          return await fetchOnce<T>(url, opts);
        } catch (err) {
          throw err instanceof ProviderError ? err : new ProviderError(opts.provider, 'network', String((err as Error).message ?? err));
        }
      },
      {
        retries,
        factor: 2,
        minTimeout: backoffMs,
        maxTimeout: Infinity,
        randomize: false,
        ...(opts.signal ? { signal: opts.signal } : {}),
        shouldRetry: ({ error }) => error instanceof ProviderError && error.retryable,
        // A Retry-After, or the provider's minimum spacing, longer than the backoff wins: wait for the
        // difference before p-retry's own delay.
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft, retryDelay }) => {
          if (!(error instanceof ProviderError) || !error.retryable || retriesLeft === 0) return;
          const retryAfterMs = (error as ProviderError & { retryAfterMs?: number }).retryAfterMs;
          const wait = Math.max(retryAfterMs ?? retryDelay, minWait);
          opts.logger?.info({ provider: opts.provider, reason: error.reason, status: error.status, attempt: attemptNumber, waitMs: wait }, `${opts.provider}: retrying`);
          if (wait > retryDelay) await sleep(wait - retryDelay, opts.signal);
        },
      },
    );
  } catch (err) {
    if (err instanceof ProviderError) {
      // The logger's `url` serializer hides credentials in it (logging/redact-url.ts).
      opts.logger?.warn({ provider: opts.provider, url, reason: err.reason, status: err.status, attempts }, err.message);
    }
    throw err;
  }
}

async function fetchOnce<T>(url: string, opts: FetchJsonOptions): Promise<T> {
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? 10_000);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  let res: Response;
  try {
    res = await fetch(url, { ...opts.init, signal, headers: { accept: 'application/json', ...opts.init?.headers } });
  } catch (err) {
    if (timeout.aborted) throw new ProviderError(opts.provider, 'timeout', `no answer within ${opts.timeoutMs ?? 10_000} ms`);
    throw new ProviderError(opts.provider, 'network', `request failed: ${(err as Error).message}`);
  }
  if (res.status === 403 || res.status === 429) {
    await res.body?.cancel();
    const e = new ProviderError(opts.provider, 'throttled', `throttled (HTTP ${res.status})`, res.status);
    const ra = Number(res.headers.get('retry-after'));
    if (Number.isFinite(ra) && ra > 0) Object.assign(e, { retryAfterMs: Math.min(ra * 1000, 60_000) });
    throw e;
  }
  const text = await res.text();
  if (!res.ok) throw new ProviderError(opts.provider, 'http', `HTTP ${res.status}: ${text.slice(0, 200)}`, res.status);
  const type = res.headers.get('content-type') ?? '';
  if (!/json/i.test(type) || /^\s*</.test(text)) {
    throw new ProviderError(opts.provider, 'not_json', `expected JSON, got ${type || 'no content type'}: ${text.slice(0, 80).replace(/\s+/g, ' ')}`, res.status);
  }
  try {
    return (opts.reviver ? JSON.parse(text, opts.reviver as (key: string, value: unknown) => unknown) : JSON.parse(text)) as T;
  } catch {
    throw new ProviderError(opts.provider, 'not_json', 'body is not valid JSON', res.status);
  }
}

const sleep = (ms: number, signal?: AbortSignal) => sleepFor(ms, undefined, signal ? { signal } : {});

