import { describe, expect, it } from 'vitest';
import { ifNoneMatchMatches, parseIfNoneMatch } from './conditional-get.js';

describe('parseIfNoneMatch', () => {
  it('reads a list of tags, strong or weak, with optional whitespace and empty elements', () => {
    expect(parseIfNoneMatch('"a"')).toEqual(['"a"']);
    expect(parseIfNoneMatch(' W/"a" ,"b",, W/"c"')).toEqual(['"a"', '"b"', '"c"']);
    expect(parseIfNoneMatch('"with,comma", "x"')).toEqual(['"with,comma"', '"x"']);
    expect(parseIfNoneMatch(' * ')).toBe('*');
  });

  it('stops at a malformed element, keeping what came before', () => {
    expect(parseIfNoneMatch('"a", b, "c"')).toEqual(['"a"']);
    expect(parseIfNoneMatch('"unterminated')).toEqual([]);
    expect(parseIfNoneMatch('w/"lowercase"')).toEqual([]);
    expect(parseIfNoneMatch('')).toEqual([]);
  });
});

describe('ifNoneMatchMatches (weak comparison)', () => {
  const etag = '"abc"';
  it('matches the same opaque tag, weak or strong on either side, anywhere in a list, and *', () => {
    expect(ifNoneMatchMatches('"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('W/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('"abc"', 'W/"abc"')).toBe(true);
    expect(ifNoneMatchMatches('"x", "y", W/"abc"', etag)).toBe(true);
    expect(ifNoneMatchMatches('*', etag)).toBe(true);
    expect(ifNoneMatchMatches(['"x"', '"abc"'], etag)).toBe(true);
  });

  it('does not match other tags, a tag without quotes, or no header', () => {
    expect(ifNoneMatchMatches(undefined, etag)).toBe(false);
    expect(ifNoneMatchMatches('abc', etag)).toBe(false);
    expect(ifNoneMatchMatches('"ABC"', etag)).toBe(false);
    expect(ifNoneMatchMatches('"abc ", "ab"', etag)).toBe(false);
    expect(ifNoneMatchMatches('', etag)).toBe(false);
  });
});
