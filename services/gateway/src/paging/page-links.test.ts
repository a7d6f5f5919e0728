import { describe, expect, it } from 'vitest';
import { pageLinks, withLinks } from './page-links.js';

const meta = (current_page: number, last_page: number) => ({ current_page, last_page });
const q = (url: string | null) => (url === null ? null : Object.fromEntries(new URL(url, 'http://x').searchParams));

describe('pageLinks', () => {
  it('middle page: all four links, other parameters kept', () => {
    const l = pageLinks('/api/public/shares?sort=dividend_yield&direction=asc&page=3&per_page=10', meta(3, 7));
    expect(q(l.first)).toEqual({ sort: 'dividend_yield', direction: 'asc', page: '1', per_page: '10' });
    expect(q(l.last)).toEqual({ sort: 'dividend_yield', direction: 'asc', page: '7', per_page: '10' });
    expect(q(l.prev)).toEqual({ sort: 'dividend_yield', direction: 'asc', page: '2', per_page: '10' });
    expect(q(l.next)).toEqual({ sort: 'dividend_yield', direction: 'asc', page: '4', per_page: '10' });
    expect(l.first.startsWith('/api/public/shares?')).toBe(true);
  });

  it('first page has no prev, last page no next; a single page has neither', () => {
    expect(pageLinks('/s', meta(1, 3)).prev).toBeNull();
    expect(pageLinks('/s?page=3', meta(3, 3)).next).toBeNull();
    const one = pageLinks('/s', meta(1, 1));
    expect([one.prev, one.next]).toEqual([null, null]);
    expect(one.first).toBe('/s?page=1');
    expect(one.last).toBe('/s?page=1');
  });

  it('without a page parameter, page is appended', () => {
    expect(pageLinks('/s?search=abc', meta(1, 2)).next).toBe('/s?search=abc&page=2');
  });

  it('a page beyond the end links back like Laravel (prev = page - 1, no next)', () => {
    const l = pageLinks('/s?page=9', meta(9, 2));
    expect(q(l.prev)).toEqual({ page: '8' });
    expect(l.next).toBeNull();
  });

  it('keeps Cyrillic and special characters intact (percent-encoded)', () => {
    const l = pageLinks('/s?search=%D0%A1%D0%B1%D0%B5%D1%80&category=a%26b', meta(1, 2));
    expect(q(l.next)).toEqual({ search: 'Сбер', category: 'a&b', page: '2' });
  });

  it('collapses a repeated page parameter into one', () => {
    expect(q(pageLinks('/s?page=2&page=5', meta(2, 4)).next)).toEqual({ page: '3' });
    expect(pageLinks('/s?page=2&page=5', meta(2, 4)).next!.match(/page=/g)).toHaveLength(1);
  });

  it('absolute links with a base URL', () => {
    expect(pageLinks('/s?page=1', meta(1, 2), 'https://api.example.com').next).toBe('https://api.example.com/s?page=2');
  });

  it('withLinks adds links to the page as received', () => {
    const page = { data: [{ id: 1 }], meta: { current_page: 1, per_page: 1, total: 2, last_page: 2, from: 1, to: 1 } };
    const linked = withLinks(page, '/s');
    expect(linked.data).toBe(page.data);
    expect(linked.meta).toBe(page.meta);
    expect(linked.links).toEqual({ first: '/s?page=1', last: '/s?page=2', prev: null, next: '/s?page=2' });
  });
});
