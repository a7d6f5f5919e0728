import { apiErrorFrom } from './api-error';
import { authHeaders } from './client';
import { type SseEvent, SseParser } from './sse-parser';

/**
 * Reads a `text/event-stream` answer with fetch (EventSource cannot send the Authorization header), calling
 * `onEvent` for each event; resolves when the stream ends. A non-2xx answer rejects with its ApiError.
 */
export async function readEventStream(response: Response, onEvent: (e: SseEvent) => void, parser = new SseParser()): Promise<void> {
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    throw apiErrorFrom(response.status, body, response.headers.get('retry-after'));
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    for (const e of parser.push(value)) onEvent(e);
  }
}

/** Opens a stream with the session's token (GET unless a body is given). */
export function fetchEventStream(url: string, opts: { signal: AbortSignal; lastEventId?: string; method?: string; body?: unknown }): Promise<Response> {
  return fetch(url, {
    method: opts.method ?? 'GET',
    headers: {
      accept: 'text/event-stream',
      ...authHeaders(),
      ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
    cache: 'no-store',
  });
}

/**
 * Keeps a GET stream open: reconnects after a drop with Last-Event-ID (so nothing is missed or repeated), waiting
 * the server's `retry:` (or 3 s, growing to 30 s while it keeps failing). Stops on abort or a 401/403.
 */
export async function followEventStream(url: string, onEvent: (e: SseEvent) => void, signal: AbortSignal, onStatus?: (connected: boolean) => void): Promise<void> {
  const parser = new SseParser();
  let failures = 0;
  while (!signal.aborted) {
    try {
      const res = await fetchEventStream(url, { signal, ...(parser.lastEventId ? { lastEventId: parser.lastEventId } : {}) });
      if (res.ok) {
        failures = 0;
        onStatus?.(true);
      }
      await readEventStream(res, onEvent, parser);
    } catch (err) {
      if (signal.aborted) return;
      const status = (err as { status?: number }).status;
      if (status === 401 || status === 403) {
        onStatus?.(false);
        return;
      }
      failures++;
    }
    onStatus?.(false);
    if (signal.aborted) return;
    const wait = failures ? Math.min(30_000, (parser.retryMs ?? 3000) * 2 ** (failures - 1)) : (parser.retryMs ?? 3000);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}
