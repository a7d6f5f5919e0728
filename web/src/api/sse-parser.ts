import { createParser } from 'eventsource-parser';

/** One server-sent event as EventSource would deliver it. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * `text/event-stream` parsing by eventsource-parser (used instead of EventSource because EventSource cannot send
 * the Authorization header the gateway's streams require), plus what EventSource keeps across a reconnect and the
 * library leaves to its caller: the last event ID (the id of the last *dispatched* event; an `id:` of an event
 * cut off before its blank line does not count, so a reconnect asks for that event again) and the server's retry.
 */
export class SseParser {
  /** What a reconnect sends as Last-Event-ID. */
  lastEventId: string | undefined;
  retryMs: number | undefined;
  private out: SseEvent[] = [];
  private readonly parser = createParser({
    // Called at dispatch only, for a block with an id (with or without data), as WHATWG moves the last event ID.
    onId: (id) => (this.lastEventId = id),
    onRetry: (ms) => (this.retryMs = ms),
    // An event without its own id carries the last one, and one without a name is a `message`, as in EventSource.
    onEvent: (e) => this.out.push({ event: e.event ?? 'message', data: e.data, ...(this.lastEventId !== undefined ? { id: this.lastEventId } : {}) }),
  });

  /** The events a chunk completes. */
  push(chunk: string): SseEvent[] {
    this.parser.feed(chunk);
    const events = this.out;
    this.out = [];
    return events;
  }

  /** Forgets what a dropped connection left half read, before the next connection; keeps lastEventId and retry. */
  reset(): void {
    this.parser.reset();
    this.out = [];
  }
}
