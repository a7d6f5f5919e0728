import { type ListSharesReply, listSharesQuerySchema } from '@invest/contracts';
import { describe, expect, it } from 'vitest';
import { pageLinks, withLinks } from '../paging/page-links.js';
import { bodyFor, pageBody, PublicPageCache, publicPageKey, READY_URL_MAX, type SerializedPage, serializePage } from './public-page.cache.js';

const q = (raw: Record<string, unknown>) => listSharesQuerySchema.parse(raw);
const k = (raw: Record<string, unknown>) => publicPageKey(q(raw));

const row = (id: number, name: string, rate: number | null) => ({
  id,
  asset: `T${id}`,
  isin: null,
  name,
  current_rate: rate,
  price_change_percentage_24h: -0.5,
  price_change_percentage_7d: null,
  dividend_yield: 1.25,
  market_cap: 6.26e12,
  trading_volume: 1e9,
  category: { id: 1, slug: 'common', name: 'Обыкновенные' },
  country: { code: 'RU', name: 'Россия' },
  currency: 'RUB',
  updated_at: '2024-02-15T15:39:59.000Z',
});

const page = (rate: number | null = 270.5): ListSharesReply => ({
  data: [row(1, 'Сбербанк "ПАО"\n', rate), row(2, 'Газпром', 160)],
  meta: { current_page: 1, per_page: 2, total: 5, last_page: 3, from: 1, to: 2 },
});

describe('publicPageKey', () => {
  it('is the same for the same query however it is spelled', () => {
    const key = publicPageKey(q({}));
    expect(publicPageKey(q({ page: '1', per_page: '20', sort: 'market_cap', direction: 'desc' }))).toBe(key);
    expect(publicPageKey(q({ direction: 'DESC', sort: ' market_cap ', page: '', category: '' }))).toBe(key);
    expect(publicPageKey(q({ country_code: 'ru', search: ' sber ' }))).toBe(publicPageKey(q({ search: 'sber', country_code: 'RU' })));
    expect(publicPageKey(q({ category: 'Preferred' }))).toBe(publicPageKey(q({ category: 'preferred' })));
    expect(publicPageKey(q({ dividend_yield_min: '5,0' }))).toBe(publicPageKey(q({ dividend_yield_min: '5' })));
  });

  it('differs for every field that changes the page', () => {
    const keys = [
      q({}),
      q({ page: '2' }),
      q({ per_page: '21' }),
      q({ sort: 'dividend_yield' }),
      q({ direction: 'asc' }),
      q({ category: '1' }),
      q({ category: 'common' }),
      q({ country_code: 'RU' }),
      q({ search: 'sber' }),
      q({ search: 'Sber' }),
      q({ search: '1' }),
      q({ dividend_yield_min: '1' }),
      q({ dividend_yield_max: '1' }),
      q({ market_cap_min: '1' }),
      q({ market_cap_max: '1' }),
    ].map(publicPageKey);
    // Every field of the parsed query is in the key: a new filter left out would serve one filter's page for another.
    const all = q({ page: '3', per_page: '7', category: 'x', country_code: 'RU', search: 's', dividend_yield_min: '1', dividend_yield_max: '2', market_cap_min: '3', market_cap_max: '4' });
    expect(JSON.parse(publicPageKey(all))).toHaveLength(Object.keys(all).length);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('serializePage and pageBody', () => {
  it('write exactly the bytes of JSON.stringify({data, meta, links})', () => {
    const p = page();
    for (const url of ['/api/public/shares', '/api/public/shares?per_page=2&search=%D1%81%D0%B1%D0%B5%D1%80&page=1']) {
      for (const base of ['', 'https://invest.example']) {
        const body = pageBody(serializePage(p, base), pageLinks(url, p.meta, base));
        expect(body.equals(Buffer.from(JSON.stringify(withLinks(p, url, base))))).toBe(true);
      }
    }
  });

  it('gives a stable strong entity tag that changes with the data, and counts UTF-8 bytes', () => {
    const a = serializePage(page());
    expect(a.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(serializePage(page()).etag).toBe(a.etag);
    expect(serializePage(page(270.51)).etag).not.toBe(a.etag);
    expect(serializePage(page(), 'https://other.example').etag).not.toBe(a.etag);
    expect(a.head.length).toBeGreaterThan(a.head.toString().length); // Cyrillic takes two bytes a letter
    // The page and one ready body (the page again and its links) are counted.
    expect(a.bytes).toBe(2 * a.head.length + 8192);
  });

  it('bodyFor keeps the body of the first short URL and builds the others, all exact', () => {
    const p = page();
    const s = serializePage(p);
    const exact = (url: string) => Buffer.from(JSON.stringify(withLinks(p, url)));
    const first = '/api/public/shares?per_page=2';
    const body = bodyFor(s, first);
    expect(body.equals(exact(first))).toBe(true);
    expect(bodyFor(s, first)).toBe(body); // the same buffer: nothing rebuilt
    const other = '/api/public/shares?per_page=2&page=1';
    expect(bodyFor(s, other).equals(exact(other))).toBe(true);
    expect(s.ready?.url).toBe(first);
    const long = `/api/public/shares?per_page=2&x=${'y'.repeat(READY_URL_MAX)}`;
    const fresh = serializePage(p);
    expect(bodyFor(fresh, long).equals(exact(long))).toBe(true);
    expect(fresh.ready).toBeUndefined();
  });
});

describe('PublicPageCache', () => {
  it('keyOf parses a URL once, and never remembers a failed parse or a long URL', () => {
    const cache = new PublicPageCache({ ttlMs: 1000, maxEntries: 2, maxBytes: 1000 });
    let parses = 0;
    const parse = (raw: Record<string, unknown>) => () => (parses++, q(raw));
    expect(cache.keyOf('/a?page=2', parse({ page: '2' }))).toBe(k({ page: '2' }));
    expect(cache.keyOf('/a?page=2', parse({ page: '2' }))).toBe(k({ page: '2' }));
    expect(parses).toBe(1);
    expect(() => cache.keyOf('/a?page=x', parse({ page: 'x' }))).toThrow();
    expect(() => cache.keyOf('/a?page=x', parse({ page: 'x' }))).toThrow();
    expect(parses).toBe(3);
    const long = `/a?search=${'s'.repeat(READY_URL_MAX)}`;
    cache.keyOf(long, parse({}));
    cache.keyOf(long, parse({}));
    expect(parses).toBe(5);
    // At most maxEntries URLs: the oldest is parsed again.
    cache.keyOf('/a?page=3', parse({ page: '3' }));
    cache.keyOf('/a?page=4', parse({ page: '4' }));
    cache.keyOf('/a?page=2', parse({ page: '2' }));
    expect(parses).toBe(8);
  });

  const serialized = (n: number, size = 10): SerializedPage => ({ head: Buffer.from(String(n)), etag: `"${n}"`, bytes: size, meta: page().meta });
  const config = { ttlMs: 1000, maxEntries: 100, maxBytes: 1_000_000 };

  it('reuses a page for its TTL, whatever the spelling of the query, then loads it again', async () => {
    let now = 0;
    const cache = new PublicPageCache(config, () => now);
    let loads = 0;
    const load = async () => serialized(++loads);
    expect((await cache.get(k({}), load)).head.toString()).toBe('1');
    now = 999;
    expect((await cache.get(k({ sort: 'market_cap', page: '1' }), load)).head.toString()).toBe('1');
    now = 1000;
    expect((await cache.get(k({}), load)).head.toString()).toBe('2');
  });

  it('shares one load between concurrent misses of a page', async () => {
    const cache = new PublicPageCache(config);
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const load = async () => {
      loads++;
      await gate;
      return serialized(loads);
    };
    const reads = Array.from({ length: 10 }, () => cache.get(k({ per_page: '5' }), load));
    release();
    const pages = await Promise.all(reads);
    expect(loads).toBe(1);
    expect(new Set(pages.map((p) => p.head.toString()))).toEqual(new Set(['1']));
  });

  it('holds at most maxEntries pages, the least recently used out first', async () => {
    const cache = new PublicPageCache({ ...config, maxEntries: 3 });
    let loads = 0;
    const load = async () => serialized(++loads);
    for (const p of ['1', '2', '3']) await cache.get(k({ page: p }), load);
    await cache.get(k({ page: '1' }), load); // page 1 is now the most recent
    await cache.get(k({ page: '4' }), load); // pushes out page 2
    expect(cache.size).toBe(3);
    expect(loads).toBe(4);
    await cache.get(k({ page: '1' }), load);
    expect(loads).toBe(4);
    await cache.get(k({ page: '2' }), load);
    expect(loads).toBe(5);
  });

  it('holds at most maxBytes of pages and never keeps one larger than that', async () => {
    const cache = new PublicPageCache({ ...config, maxBytes: 250 });
    for (const p of ['1', '2', '3']) await cache.get(k({ page: p }), async () => serialized(Number(p), 100));
    expect(cache.size).toBe(2);
    expect(cache.bytes).toBe(200);
    await cache.get(k({ page: '9' }), async () => serialized(9, 251));
    expect(cache.bytes).toBe(200);
    let loads = 0;
    await cache.get(k({ page: '9' }), async () => serialized(++loads, 251));
    expect(loads).toBe(1);
  });

  it('invalidate() forgets every page and any load in flight', async () => {
    const cache = new PublicPageCache(config);
    await cache.get(k({}), async () => serialized(1));
    let release!: (p: SerializedPage) => void;
    const inflight = cache.get(k({ page: '2' }), () => new Promise<SerializedPage>((r) => (release = r)));
    cache.invalidate();
    expect(cache.size).toBe(0);
    expect((await cache.get(k({}), async () => serialized(2))).head.toString()).toBe('2');
    const fresh = cache.get(k({ page: '2' }), async () => serialized(3));
    release(serialized(99));
    expect((await inflight).head.toString()).toBe('99');
    expect((await fresh).head.toString()).toBe('3');
    expect((await cache.get(k({ page: '2' }), async () => serialized(4))).head.toString()).toBe('3');
  });
});
