import { describe, expect, it } from 'vitest';
import { nextPath } from './next-path';

const ORIGIN = 'https://invest.example';
const next = (value: string) => nextPath(`?next=${encodeURIComponent(value)}`, ORIGIN);

describe('where sign-in goes next', () => {
  it('keeps a path of this site with its query and fragment', () => {
    expect(next('/portfolios/5')).toBe('/portfolios/5');
    expect(next('/chat?portfolio=5#last')).toBe('/chat?portfolio=5#last');
    expect(next('/notifications/../portfolios')).toBe('/portfolios');
  });

  it('falls back to /portfolios for anything that could leave the site', () => {
    for (const value of ['/\\evil.example/x', '//evil.example/x', '/\t/evil.example', 'https://evil.example/', 'javascript:alert(1)', 'portfolios', '/%0a/x\n']) {
      expect(next(value), value).toBe('/portfolios');
    }
  });

  it('falls back without a next, and instead of the sign-in page itself', () => {
    expect(nextPath('', ORIGIN)).toBe('/portfolios');
    expect(next('/sign-in?next=/chat')).toBe('/portfolios');
  });
});
