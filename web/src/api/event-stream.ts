import { ApiError, apiErrorFrom } from './api-error';
import { sendRequest } from './client';
import { type SseEvent, SseParser } from './sse-parser';

/**
 * Reads a `text/event-stream` answer with fetch (EventSource cannot send the Authorization header), calling
 * `onEvent` for each event; resolves when the stream ends. A non-2xx answer rejects with its ApiError, a
 * connection lost while reading with the `network` one (status 0).
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
    let chunk: ReadableStreamReadResult<string>;
    try {
      chunk = await reader.read();
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new ApiError(0, 'network', (err as Error).message);
    }
    if (chunk.done) return;
    for (const e of parser.push(chunk.value)) onEvent(e);
  }
}

/**
 * Opens a stream with the session's token (GET unless a body is given), through the same sendRequest as every
 * other call: no connection rejects with the `network` ApiError, a 401 signs the user out.
 */
export function fetchEventStream(url: string, opts: { signal: AbortSignal; lastEventId?: string; method?: string; body?: unknown }): Promise<Response> {
  return sendRequest(url, {
    method: opts.method ?? 'GET',
    headers: {
      accept: 'text/event-stream',
      ...(opts.lastEventId ? { 'last-event-id': opts.lastEventId } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: opts.signal,
    cache: 'no-store',
  });
}

/**
 * Keeps a GET stream open: reconnects after a drop with the Last-Event-ID of the last event it delivered (so
 * nothing is missed or repeated; an event cut off mid-way is asked for again), waiting the server's `retry:` (or
 * 3 s, growing to 30 s while it keeps failing). Each connection starts with a clean parser (what the dropped one
 * left half read is discarded). Stops on abort or a 401/403 (a 401 has signed the user out).
 */
export async function followEventStream(url: string, onEvent: (e: SseEvent) => void, signal: AbortSignal, onStatus?: (connected: boolean) => void): Promise<void> {
  const parser = new SseParser();
  let failures = 0;
  while (!signal.aborted) {
    parser.reset();
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
