import type { ChatStreamEvent } from '@invest/contracts';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * What a model sends, made storable and streamable alike, chunk by chunk: U+0000 dropped (Postgres text cannot hold
 * it, and it means nothing in an answer); a lone surrogate becomes U+FFFD, as Postgres stores it, so the stream
 * shows what a reload shows; a high surrogate ending a chunk waits for the next (a pair split between two chunks).
 */
export class ChunkText {
  private pending = '';

  /** The text of the next chunk to stream and store (may be empty). */
  push(raw: string): string {
    let text = this.pending + (raw.includes('\u0000') ? raw.replaceAll('\u0000', '') : raw);
    this.pending = '';
    if (/[\uD800-\uDBFF]$/.test(text)) {
      this.pending = text.slice(-1);
      text = text.slice(0, -1);
    }
    return text.replace(LONE_SURROGATE, '\ufffd');
  }

  /** What is left when the model is done: a high surrogate no low one followed. */
  end(): string {
    const left = this.pending ? '\uFFFD' : '';
    this.pending = '';
    return left;
  }
}

/**
 * Most characters in one stream event: JetStream refuses a message over NATS's max_payload (1 MB by default), and
 * 128 Ki characters stay below it however they are encoded (3 bytes of UTF-8 each, or 6 as a JSON escape).
 */
export const MAX_EVENT_CHARS = 128 * 1024;

/** `text` in pieces of at most `max` characters, never between the two halves of a surrogate pair. */
export function eventPieces(text: string, max = MAX_EVENT_CHARS): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (text.length - at > max) {
    let cut = at + max;
    if (/[\uD800-\uDBFF]/.test(text[cut - 1]!)) cut--;
    pieces.push(text.slice(at, cut));
    at = cut;
  }
  pieces.push(text.slice(at));
  return pieces;
}

/**
 * Longest answer kept (characters, ~60,000 tokens: beyond any model's output limit): one such message, in any script,
 * stays below NATS's 1 MB in a page of `chat.chats.get`.
 */
export const MAX_ANSWER_CHARS = 250_000;

/**
 * Takes the next event to publish off `queue`: a chunk takes the chunks queued right behind it along, as one
 * chunk of their text, up to MAX_EVENT_CHARS.
 */
export function coalesceChunks(queue: ChatStreamEvent[]): ChatStreamEvent {
  const first = queue.shift()!;
  if (first.type !== 'chunk') return first;
  let content = first.data.content;
  let next = queue[0];
  while (next?.type === 'chunk' && content.length + next.data.content.length <= MAX_EVENT_CHARS) {
    content += next.data.content;
    queue.shift();
    next = queue[0];
  }
  return { type: 'chunk', data: { content } };
}
