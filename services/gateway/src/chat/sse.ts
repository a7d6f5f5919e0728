import type { ServerResponse } from 'node:http';
import { ServiceError } from '@invest/platform';

/** Writes one server-sent event; `data` is JSON on one line. */
export function writeSse(res: ServerResponse, e: { id?: string | number; event: string; data: unknown }): void {
  res.write(`${e.id === undefined ? '' : `id: ${e.id}\n`}event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
}

/** Headers of an event stream that no proxy buffers. */
export function openSse(res: ServerResponse, extra: Record<string, string> = {}): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    ...extra,
  });
  res.flushHeaders();
}

/** `Last-Event-ID` (or `?last_event_id`) as a stream sequence; none or empty: from the start; anything else is a 422. */
export function parseLastEventId(value: unknown): number {
  if (value === undefined || value === '') return 0;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  throw ServiceError.validation({ 'Last-Event-ID': ['The Last-Event-ID must be an event id of the stream.'] });
}
