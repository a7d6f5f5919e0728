import { describe, expect, it } from 'vitest';
import { ChunkText, eventPieces } from './chunk-text.js';

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
