import { describe, expect, it } from 'vitest';
import type { ChatStreamEvent } from '@invest/contracts';
import { ChunkText, coalesceChunks, eventPieces, MAX_EVENT_CHARS } from './chunk-text.js';

describe('ChunkText', () => {
  it('drops U+0000 and turns a lone surrogate into U+FFFD, as Postgres stores it', () => {
    const c = new ChunkText();
    expect(c.push('a\u0000b')).toBe('ab');
    expect(c.push('x\udc00y')).toBe('x\ufffdy');
    expect(c.push('\ud800z')).toBe('\ufffdz');
    expect(c.end()).toBe('');
  });

  it('keeps a pair split between two chunks whole, and ends a dangling high surrogate as U+FFFD', () => {
    const c = new ChunkText();
    expect(c.push('smile \ud83d')).toBe('smile ');
    expect(c.push('\ude00!')).toBe('\u{1F600}!');
    expect(c.push('tail \ud83d')).toBe('tail ');
    expect(c.end()).toBe('\ufffd');
    expect(c.end()).toBe('');
  });
});

describe('eventPieces', () => {
  it('cuts at most `max` characters a piece and never between the halves of a pair', () => {
    expect(eventPieces('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(eventPieces('ab\u{1F600}cd', 3)).toEqual(['ab', '\u{1F600}c', 'd']);
    expect(eventPieces('', 3)).toEqual(['']);
    const big = 'z'.repeat(300_000);
    const pieces = eventPieces(big);
    expect(pieces.map((p) => p.length)).toEqual([131_072, 131_072, 37_856]);
    expect(pieces.join('')).toBe(big);
  });
});

describe('coalesceChunks', () => {
  const chunk = (content: string): ChatStreamEvent => ({ type: 'chunk', data: { content } });

  it('takes the chunks queued behind a chunk along, in order, and stops at any other event', () => {
    const done: ChatStreamEvent = { type: 'done', data: { message_id: 'm', status: 'complete', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, estimated: false }, remaining: null, sources: [] } };
    const queue = [chunk('a'), chunk('b'), chunk('c'), done, chunk('d')];
    expect(coalesceChunks(queue)).toEqual(chunk('abc'));
    expect(coalesceChunks(queue)).toBe(done);
    expect(coalesceChunks(queue)).toEqual(chunk('d'));
    expect(queue).toEqual([]);
  });

  it('keeps one event within MAX_EVENT_CHARS', () => {
    const big = 'x'.repeat(MAX_EVENT_CHARS - 1);
    const queue = [chunk(big), chunk('yy'), chunk('z')];
    expect(coalesceChunks(queue)).toEqual(chunk(big));
    expect(coalesceChunks(queue)).toEqual(chunk('yyz'));
  });
});
