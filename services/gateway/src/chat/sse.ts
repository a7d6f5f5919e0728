import type { ServerResponse } from 'node:http';

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

/** `Last-Event-ID` as a stream sequence; anything else means "from the start". */
export function parseLastEventId(value: unknown): number {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' && /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : 0;
}
