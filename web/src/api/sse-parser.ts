/** One server-sent event as the stream sent it. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * Incremental `text/event-stream` parser (WHATWG rules: `\n`, `\r\n` or `\r` line ends, `:` comments, multi-line
 * `data`, an event ends at a blank line). Used instead of EventSource because EventSource cannot send the
 * Authorization header the gateway's streams require.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  /** The `id:` read so far (the last event ID buffer): it becomes lastEventId only when an event is dispatched. */
  private id: string | undefined;
  /**
   * The id of the last event dispatched (an `id:` of an event cut off before its blank line does not count):
   * what a reconnect sends as Last-Event-ID, so the server replays that cut-off event.
   */
  lastEventId: string | undefined;
  retryMs: number | undefined;

  /**
   * Forgets what a dropped connection left half read (a partial line, an undispatched event's data, name and
   * id) before the next connection; keeps lastEventId and the server's retry.
   */
  reset(): void {
    this.buffer = '';
    this.afterCr = false;
    this.data = [];
    this.event = '';
    this.id = this.lastEventId;
  }

  push(chunk: string): SseEvent[] {
    // A \r ended the last chunk's last line; a \n starting this one is the rest of that line end.
    if (this.afterCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCr = false;
    this.buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      // A \r at the very end ends its line now (CR-only streams are not held back to the next chunk).
      if (m[0] === '\r' && this.buffer === '') this.afterCr = true;
      const e = this.line(line);
      if (e) out.push(e);
    }
    return out;
  }

  private afterCr = false;

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      // Dispatch (WHATWG): the last event ID moves now, even for a block without data.
      this.lastEventId = this.id;
      if (this.data.length === 0) {
        this.event = '';
        return undefined;
      }
      const e: SseEvent = { event: this.event || 'message', data: this.data.join('\n'), ...(this.id !== undefined ? { id: this.id } : {}) };
      this.data = [];
      this.event = '';
      return e;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }
}
