/**
 * Odd screener queries over HTTP (real gateway, real screener, real NATS + Postgres): array and object parameters,
 * encodings that are not UTF-8, NUL, non-ASCII digits, out-of-range numbers, prototype keys. Every answer is a 200
 * or a 422 naming a field; never a 500.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageBody, type ScreenerStack, startScreenerStack } from '../support/screener-stack.js';

const SECRET = 'screener-query-edge-secret-0123456789-0123';

let stack: ScreenerStack;
let sql: pg.Client;
let base: string;


async function raw(pathAndQuery: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${pathAndQuery}`);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body };
}

beforeAll(async () => {
  stack = await startScreenerStack('gw_scr_query_edge', { jwtSecret: SECRET });
  ({ sql, base } = stack);
});

afterAll(async () => {
  await stack?.close();
});

const FIELDS = ['page', 'per_page', 'sort', 'direction', 'category', 'country_code', 'search', 'dividend_yield_min', 'dividend_yield_max', 'market_cap_min', 'market_cap_max'];

describe('odd queries: 200 or 422 naming a field, never 500', () => {
  const queries = [
    'page[]=1',
    'page[a]=1',
    'page=%31',
    'page=1%00',
    'page=%EF%BC%91', // full-width digit one
    'per_page=%D9%A1', // arabic-indic digit one
    'search=%00',
    'search=%FF',
    'search=%',
    'search=%E0%A4%A',
    'search=%ED%A0%80', // lone surrogate encoded in UTF-8
    'search=%5C',
    'search=%25',
    'search=_',
    `search=${encodeURIComponent('я'.repeat(100))}`,
    `search=${encodeURIComponent('я'.repeat(101))}`,
    `search=${encodeURIComponent('😀'.repeat(60))}`,
    'category=0',
    'category=-1',
    'category=2147483648',
    'category=99999',
    'category=ORDINARY',
    'category=%D0%B0',
    'category[]=1',
    'country_code=ru',
    'country_code=XX',
    'country_code[]=RU',
    'sort=MARKET_CAP',
    'sort=market_cap%00',
    'sort[]=market_cap',
    'direction=ASC',
    'page=2147483647&per_page=100',
    'page=2147483648',
    'page=99999999999999999999999',
    'per_page=100&page=21474837',
    'foo=bar',
    'search=',
    '&&&=&',
    'constructor=1',
    '__proto__=1',
    '__proto__[page]=0',
    'dividend_yield_min[]=1',
    'dividend_yield_min=%00',
    'dividend_yield_min=%EF%BC%95', // full-width digit five
    'dividend_yield_max=99999999999999999999999',
    'market_cap_min=1%2C5',
    'market_cap_max=1.00000000001',
    'market_cap_min=5&market_cap_min=6',
  ];
  for (const q of queries) {
    it(`/api/public/shares?${q}`, async () => {
      const { status, body } = await raw(`/api/public/shares?${q}`);
      expect([200, 422], `${q}: ${status} ${JSON.stringify(body).slice(0, 300)}`).toContain(status);
      if (status === 422) {
        const errors = (body as { errors?: Record<string, string[]> }).errors ?? {};
        expect(Object.keys(errors).length, JSON.stringify(body)).toBeGreaterThan(0);
        for (const k of Object.keys(errors)) expect(FIELDS, JSON.stringify(body)).toContain(k);
      }
    });
  }

  it('a search of 100 Cyrillic letters is accepted (limit is characters, not bytes)', async () => {
    const { status } = await raw(`/api/public/shares?search=${encodeURIComponent('я'.repeat(100))}`);
    expect(status).toBe(200);
  });

  it('search is case- and ё-insensitive in Cyrillic, matches ISIN and Latin name', async () => {
    const [row] = (await sql.query<{ ticker: string; name: string; isin: string }>(`select ticker, name, isin from assets where type='share' and ticker='SBER'`)).rows;
    for (const term of [row!.name.toUpperCase(), row!.name.toLowerCase(), row!.isin.toLowerCase(), 'sber']) {
      const { status, body } = await raw(`/api/public/shares?per_page=100&search=${encodeURIComponent(term)}`);
      expect(status).toBe(200);
      expect((body as PageBody).data.map((r) => r.asset), term).toContain('SBER');
    }
  });

  it('the last page beyond the data: empty data, meta consistent, links.prev points back', async () => {
    const { status, body } = await raw('/api/public/shares?page=1000&per_page=10');
    expect(status).toBe(200);
    const p = body as PageBody;
    expect(p.data).toEqual([]);
    expect(p.meta.from).toBeNull();
    expect(p.meta.to).toBeNull();
    expect(p.meta.current_page).toBe(1000);
  });
});
