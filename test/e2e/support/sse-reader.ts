/** One event of an SSE response: its `id:`, `event:` and `data:` (parsed as JSON; read loosely by the tests). */
export interface SseEvent {
  id?: string;
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies are read loosely; the assertions check their shape
  data: any;
}

/**
 * An SSE response read incrementally: `next()` gives the named events as they arrive (comments and unnamed ones
 * are skipped), `rest()` all until the end, `raw` every byte so far; `drop()` aborts the request.
 */
export function readSse(res: Response, request: AbortController) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let raw = '';
  const queue: SseEvent[] = [];
  let ended = false;
  async function fill(): Promise<void> {
    const { value, done } = await reader.read();
    if (done) {
      ended = true;
      return;
    }
    const text = decoder.decode(value, { stream: true });
    raw += text;
    buffer += text;
    let i: number;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      const e: Partial<SseEvent> = {};
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const [k, ...rest] = line.split(':');
        const v = rest.join(':').replace(/^ /, '');
        if (k === 'id') e.id = v;
        if (k === 'event') e.event = v;
        if (k === 'data') data += v;
      }
      if (e.event) queue.push({ ...e, event: e.event, data: data ? JSON.parse(data) : undefined } as SseEvent);
    }
  }
  return {
    res,
    get raw() {
      return raw;
    },
    async next(): Promise<SseEvent | undefined> {
      while (queue.length === 0 && !ended) await fill();
      return queue.shift();
    },
    async rest(): Promise<SseEvent[]> {
      const out: SseEvent[] = [];
      for (let e = await this.next(); e; e = await this.next()) out.push(e);
      return out;
    },
    drop() {
      request.abort();
    },
  };
}

/**
 * The event types of an answer's stream with consecutive chunks as one: the chat service publishes the chunks that
 * queued behind a publish as one event, so how many chunk events carry an answer depends on timing.
 */
export function eventKinds(events: readonly SseEvent[]): string[] {
  return events.map((e) => e.event).filter((type, i, all) => type !== 'chunk' || all[i - 1] !== 'chunk');
}
