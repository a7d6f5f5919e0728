import type { Logger } from '@invest/platform/logging/logger';
import { fetchJson } from '@invest/platform/http/fetch-json';

/** How a provider is called: timeout per attempt, retries with exponential backoff (403/429/5xx, timeouts, network). */
export interface ProviderHttpOptions {
  timeoutMs: number;
  retries: number;
  backoffMs: number;
}

export const DEFAULT_PROVIDER_HTTP: ProviderHttpOptions = { timeoutMs: 10_000, retries: 3, backoffMs: 500 };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * A signal for one request, aborted when `parent` aborts. The link is removed afterwards, so a long-lived
 * parent (the service's stop signal) does not collect a listener per request.
 */
async function withChildSignal<T>(parent: AbortSignal | undefined, fn: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (!parent) return fn(undefined);
  const child = new AbortController();
  const onAbort = () => child.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  try {
    return await fn(child.signal);
  } finally {
    parent.removeEventListener('abort', onAbort);
  }
}

/**
 * A JSON provider at a configurable base URL, called one request at a time with at least `minIntervalMs`
 * between requests, retries included (MOEX publishes no limit and asks clients to throttle themselves).
 */
export class ProviderClient {
  private last = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly provider: string,
    readonly baseUrl: string,
    private readonly opts: { logger?: Logger; http?: Partial<ProviderHttpOptions>; minIntervalMs?: number; headers?: Record<string, string> },
  ) {}

  /** GETs `pathAndQuery` (relative to the base URL) as JSON; throws ProviderError with a reason operators understand. */
  get<T = unknown>(pathAndQuery: string, parentSignal?: AbortSignal): Promise<T> {
    const run = this.queue.then(() => withChildSignal(parentSignal, async (signal) => {
      const wait = this.last + (this.opts.minIntervalMs ?? 0) - Date.now();
      if (wait > 0) await sleep(wait, signal);
      try {
        const http = { ...DEFAULT_PROVIDER_HTTP, ...this.opts.http };
        return await fetchJson<T>(this.url(pathAndQuery), {
          provider: this.provider,
          ...(this.opts.logger ? { logger: this.opts.logger } : {}),
          timeoutMs: http.timeoutMs,
          retries: http.retries,
          backoffMs: http.backoffMs,
          // A retry is a request too: never sooner than the spacing, however short the backoff.
          minRetryWaitMs: this.opts.minIntervalMs ?? 0,
          ...(this.opts.headers ? { init: { headers: this.opts.headers } } : {}),
          ...(signal ? { signal } : {}),
        });
      } finally {
        this.last = Date.now();
      }
    }));
    this.queue = run.catch(() => undefined);
    return run;
  }

  url(pathAndQuery: string): string {
    return `${this.baseUrl.replace(/\/+$/, '')}${pathAndQuery.startsWith('/') ? '' : '/'}${pathAndQuery}`;
  }
}
