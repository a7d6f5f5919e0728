/** Where sign-in goes next (next-path.ts): dot segments, encodings and schemes. */
import { describe, expect, it } from 'vitest';
import { nextPath } from './next-path';

const ORIGIN = 'https://invest.example';
const next = (value: string) => nextPath(`?next=${encodeURIComponent(value)}`, ORIGIN);

describe('next-path edges', () => {
  it('never returns a scheme-relative "//host" path (dot segments collapse to one: "/.//evil.example")', () => {
    // new URL('/.//evil.example', origin).pathname is '//evil.example'; history.pushState('//evil.example') resolves
    // it against the page, i.e. to https://evil.example/ (another origin: SecurityError, not a navigation).
    for (const value of ['/.//evil.example', '/..//evil.example/x', '/%2e//evil.example', '/a/..//evil.example']) {
      expect(next(value), value).not.toMatch(/^\/\//);
    }
  });

  it('encoded slashes and backslashes stay paths; schemes, //, controls and /sign-in fall back', () => {
    expect(next('/%5Cevil')).toBe('/%5Cevil');
    expect(next('/%2F%2Fevil.example')).toBe('/%2F%2Fevil.example');
    for (const value of ['//', '///evil.example', '/\t/evil.example', '/\\evil', 'javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,x', ' /portfolios', '/./sign-in', '/sign-in#x', '/x/../sign-in?a=1']) {
      expect(next(value), value).toBe('/portfolios');
    }
  });
});
