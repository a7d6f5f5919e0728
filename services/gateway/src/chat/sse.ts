import type { ServerResponse } from 'node:http';
import type { Locale } from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { localizeMessage } from '../i18n/localize-error.js';

/**
 * Writes one server-sent event; `data` is JSON on one line. An `error` event's `message` is written in `locale` (the
 * stream request's Accept-Language, English when it names none), as error bodies are (docs/decisions/0035-localized-errors.md).
 */
export function writeSse(res: ServerResponse, e: { id?: string | number; event: string; data: unknown }, locale: Locale = 'en'): void {
  res.write(`${e.id === undefined ? '' : `id: ${e.id}\n`}event: ${e.event}\ndata: ${JSON.stringify(localizedEventData(e.event, e.data, locale))}\n\n`);
}

/** The data of an `error` event with its `message` in `locale`; any other event's data as it is. */
export function localizedEventData(event: string, data: unknown, locale: Locale): unknown {
  if (event !== 'error' || locale === 'en' || typeof data !== 'object' || data === null || !('message' in data) || typeof data.message !== 'string') return data;
  return { ...data, message: localizeMessage(data.message, locale) };
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
