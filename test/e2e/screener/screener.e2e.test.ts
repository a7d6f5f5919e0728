/**
 * The share screener through HTTP: the real screener service (demo data, fresh test database) behind
 * the real gateway, over real NATS. Expectations come from direct SQL on the test database or from
 * properties of the answer (order of adjacent rows, links that walk every page), never from the
 * implementation's own output.
 */
import { SHARE_SORT_COLUMNS, type ShareRow, shareRowSchema } from '@invest/contracts';
import { createLogger } from '@invest/platform';
import { testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { createGatewayApp, type GatewayApp } from '@invest/gateway/gateway.app';
import { type PageBody, type ScreenerStack, startScreenerStack } from '../support/screener-stack.js';

const SECRET = 'screener-e2e-secret-0123456789-0123456789';

interface Answer<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

let stack: ScreenerStack;
let sql: pg.Client;
let base: string;
const screenerLog: string[] = [];

/** One share added by the test with no market data at all: every sort column has a null. */
const BARE_TICKER = 'ZZBARE';
/** 7-day changes set by the test (the demo data has none), with a tie and a negative. */
const WEEK_CHANGES: Record<string, number> = { SBER: 3.5, GAZP: -2.25, LKOH: 3.5, YNDX: 0, MOEX: 11.75, AFKS: -7 };

async function call<T = unknown>(path: string, headers: Record<string, string> = {}): Promise<Answer<T>> {
  const res = await fetch(new URL(path, base), { headers });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
}

async function page(path: string, headers: Record<string, string> = {}): Promise<PageBody> {
  const res = await call<PageBody>(path, headers);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** Every row of a listing, walking `links.next` from the given URL; checks each page's meta on the way. */
async function walk(path: string): Promise<{ rows: ShareRow[]; pages: number; total: number }> {
  const rows: ShareRow[] = [];
  let next: string | null = path;
  let pages = 0;
  let total = -1;
  while (next) {
    const body: PageBody = await page(next);
    pages++;
    if (total < 0) total = body.meta.total;
    expect(body.meta.total).toBe(total);
    expect(body.meta.current_page).toBe(pages);
    expect(body.meta.from).toBe(body.data.length ? (pages - 1) * body.meta.per_page + 1 : null);
    rows.push(...body.data);
    next = body.links.next;
    expect(pages).toBeLessThan(100);
  }
  return { rows, pages, total };
}

const sqlRows = async <T extends Record<string, unknown>>(text: string, params: unknown[] = []) => (await sql.query<T>(text, params)).rows;
const sqlCount = async (text: string, params: unknown[] = []) => Number((await sqlRows<{ n: string }>(text, params))[0]!.n);
const SHARES_FROM = `from shares s join assets a on a.id = s.asset_id where a.type = 'share'`;

beforeAll(async () => {
  stack = await startScreenerStack('gw_screener', {
    jwtSecret: SECRET,
    screenerLogger: createLogger('screener', 'debug', { write: (line: string) => void screenerLog.push(line) }),
    prepare: async (db) => {
      await db.query(
        `with a as (insert into assets (type, ticker, name, currency) values ('share', $1, 'Тестовая акция без данных', 'RUB') returning id)
         insert into shares (asset_id, category_id) select a.id, (select id from share_categories where slug = 'ordinary') from a`,
        [BARE_TICKER],
      );
      for (const [ticker, change] of Object.entries(WEEK_CHANGES)) {
        await db.query(`update assets set price_change_percentage_7d = $2 where type = 'share' and ticker = $1`, [ticker, change]);
      }
    },
  });
  ({ sql, base } = stack);
});

afterAll(async () => {
  await stack?.close();
});

describe('GET /api/public/shares', () => {
  it('answers a Laravel page of screener rows with the default page size', async () => {
    const total = await sqlCount(`select count(*) as n ${SHARES_FROM}`);
    expect(total).toBeGreaterThan(40);
    const body = await page('/api/public/shares');
    expect(Object.keys(body).sort()).toEqual(['data', 'links', 'meta']);
    expect(body.meta).toEqual({ current_page: 1, per_page: 20, total, last_page: Math.ceil(total / 20), from: 1, to: 20 });
    expect(body.data).toHaveLength(20);
    for (const row of body.data) shareRowSchema.parse(row);
    expect(body.links.prev).toBeNull();
    expect(new URL(body.links.next!, base).searchParams.get('page')).toBe('2');
  });

  // Direct SQL gives each column's values in the expected order (Postgres' own sort, nulls last).
  const sqlColumn: Record<string, string> = {
    price_change_percentage_24h: 'a.price_change_percentage_24h',
    price_change_percentage_7d: 'a.price_change_percentage_7d',
    market_cap: 's.market_cap',
    trading_volume: 's.trading_volume',
  };

  for (const sort of SHARE_SORT_COLUMNS) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`sorts by ${sort} ${direction}, nulls last, across every page`, async () => {
        const { rows, total, pages } = await walk(`/api/public/shares?sort=${sort}&direction=${direction}&per_page=15`);
        expect(rows).toHaveLength(total);
        expect(total).toBe(await sqlCount(`select count(*) as n ${SHARES_FROM}`));
        expect(pages).toBe(Math.ceil(total / 15));
        expect(new Set(rows.map((r) => r.id)).size).toBe(total);

        const values = rows.map((r) => r[sort]);
        const firstNull = values.indexOf(null);
        expect(firstNull, 'the bare share has no value, so some row must be null').toBeGreaterThan(0);
        expect(values.slice(firstNull).every((v) => v === null), 'nulls come last').toBe(true);
        expect(rows.slice(firstNull).some((r) => r.asset === BARE_TICKER)).toBe(true);
        for (let i = 1; i < firstNull; i++) {
          const [prev, cur] = [values[i - 1] as number, values[i] as number];
          if (direction === 'asc') expect(prev, `${rows[i - 1]!.asset} before ${rows[i]!.asset}`).toBeLessThanOrEqual(cur);
          else expect(prev, `${rows[i - 1]!.asset} before ${rows[i]!.asset}`).toBeGreaterThanOrEqual(cur);
        }

        const column = sqlColumn[sort];
        if (column) {
          const expected = await sqlRows<{ v: number | null }>(`select ${column}::float8 as v ${SHARES_FROM} order by ${column} ${direction} nulls last`);
          expect(values).toEqual(expected.map((r) => r.v));
        }
      });
    }
  }

  it('default sort is market_cap desc', async () => {
    const top = await sqlRows<{ ticker: string }>(`select a.ticker ${SHARES_FROM} and s.market_cap is not null order by s.market_cap desc limit 1`);
    const body = await page('/api/public/shares?per_page=1');
    expect(body.data[0]!.asset).toBe(top[0]!.ticker);
  });

  it('filters by category slug and by category id', async () => {
    const categories = await sqlRows<{ id: number; slug: string; n: string }>(
      `select c.id, c.slug, count(s.asset_id) as n from share_categories c left join shares s on s.category_id = c.id group by c.id order by c.id`,
    );
    expect(categories.filter((c) => Number(c.n) > 0).length).toBeGreaterThan(1);
    for (const c of categories) {
      const bySlug = await walk(`/api/public/shares?category=${c.slug}&per_page=100`);
      const byId = await walk(`/api/public/shares?category=${c.id}&per_page=100`);
      expect(bySlug.total).toBe(Number(c.n));
      expect(bySlug.rows.every((r) => r.category.id === c.id && r.category.slug === c.slug)).toBe(true);
      expect(byId.rows.map((r) => r.id)).toEqual(bySlug.rows.map((r) => r.id));
    }
    expect((await page('/api/public/shares?category=no-such-category')).meta.total).toBe(0);
  });

  it('filters by country_code (any case)', async () => {
    const counts = await sqlRows<{ code: string; n: string }>(`select s.country_code as code, count(*) as n ${SHARES_FROM} and s.country_code is not null group by 1`);
    expect(counts.length).toBeGreaterThan(1);
    for (const { code, n } of counts) {
      const { rows, total } = await walk(`/api/public/shares?country_code=${code}&per_page=100`);
      expect(total).toBe(Number(n));
      expect(rows.every((r) => r.country?.code === code)).toBe(true);
    }
    const [first] = counts;
    expect((await page(`/api/public/shares?country_code=${first!.code.toLowerCase()}`)).meta.total).toBe(Number(first!.n));
    expect((await page('/api/public/shares?country_code=ZW')).meta.total).toBe(0);
  });

  it('combines filters', async () => {
    const n = await sqlCount(
      `select count(*) as n ${SHARES_FROM} and s.country_code = 'RU' and s.category_id = (select id from share_categories where slug = 'preferred')`,
    );
    expect(n).toBeGreaterThan(0);
    expect((await page('/api/public/shares?country_code=RU&category=preferred')).meta.total).toBe(n);
  });

  it('filters by a dividend yield range (percent, bounds included, unknown yields left out)', async () => {
    // Expected from the database: the yield of every share whose dividends are known, by the rule's own words
    // (same-currency dividends with a record date in [today, today + 12 months), over the price).
    const yields = await sqlRows<{ ticker: string; y: number }>(
      `select a.ticker, (coalesce((select sum(d.value) from dividends d where d.asset_id = a.id and d.currency = a.currency
                                   and d.record_date >= (now() at time zone 'Europe/Moscow')::date
                                   and d.record_date < ((now() at time zone 'Europe/Moscow')::date + interval '12 months')), 0)
                          / a.current_rate * 100)::float8 as y
       ${SHARES_FROM} and s.dividends_synced_at is not null and a.current_rate > 0`,
    );
    const within = (min: number, max: number) => yields.filter((r) => r.y >= min && r.y <= max).map((r) => r.ticker).sort();
    expect(within(5, 1000).length).toBeGreaterThan(0);
    expect(within(0, 5).length).toBeGreaterThan(0);
    const tickersOf = async (q: string) => (await walk(`/api/public/shares?per_page=100&${q}`)).rows.map((r) => r.asset).sort();
    expect(await tickersOf('dividend_yield_min=5')).toEqual(within(5, 1000));
    expect(await tickersOf('dividend_yield_max=5')).toEqual(within(0, 5));
    expect(await tickersOf('dividend_yield_min=2.5&dividend_yield_max=12,5')).toEqual(within(2.5, 12.5));
    const rows = (await walk('/api/public/shares?per_page=100&sort=dividend_yield&direction=asc&dividend_yield_min=3')).rows;
    expect(rows.every((r) => r.dividend_yield !== null && r.dividend_yield >= 3)).toBe(true);
  });

  it('filters by a market cap range (RUB, bounds included, shares without one left out)', async () => {
    const [mid] = await sqlRows<{ cap: string }>(
      `select percentile_disc(0.5) within group (order by s.market_cap)::text as cap ${SHARES_FROM} and s.market_cap is not null`,
    );
    const cap = Number(mid!.cap);
    const count = (where: string, params: unknown[]) => sqlCount(`select count(*) as n ${SHARES_FROM} and ${where}`, params);
    const atLeast = await walk(`/api/public/shares?per_page=100&market_cap_min=${cap}`);
    expect(atLeast.total).toBe(await count('s.market_cap >= $1', [cap]));
    expect(atLeast.rows.every((r) => r.market_cap !== null && r.market_cap >= cap)).toBe(true);
    expect(atLeast.rows.map((r) => r.market_cap)).toContain(cap);
    const atMost = await walk(`/api/public/shares?per_page=100&market_cap_max=${cap}`);
    expect(atMost.total).toBe(await count('s.market_cap <= $1', [cap]));
    expect(atLeast.total + atMost.total).toBe((await count('s.market_cap is not null', [])) + (await count('s.market_cap = $1', [cap])));
    const between = await page(`/api/public/shares?market_cap_min=1000000000&market_cap_max=100000000000&country_code=RU`);
    expect(between.meta.total).toBe(await count(`s.market_cap between 1e9 and 1e11 and s.country_code = 'RU'`, []));
    expect(between.meta.total).toBeGreaterThan(0);
    // The links carry the filters to the next page.
    expect(Object.fromEntries(new URL(between.links.next!, base).searchParams)).toMatchObject({ market_cap_min: '1000000000', market_cap_max: '100000000000' });
  });

  describe('search', () => {
    /** Tickers whose ticker, ISIN, name, short or Latin name contain the term (case-insensitive, ё = е), computed here. */
    const expectedTickers = async (term: string) => {
      const all = await sqlRows<Record<string, string | null>>(`select a.ticker, a.isin, a.name, a.short_name, a.latin_name ${SHARES_FROM}`);
      const fold = (v: string) => v.toLocaleLowerCase('ru').replaceAll('ё', 'е');
      return all
        .filter((r) => [r.ticker, r.isin, r.name, r.short_name, r.latin_name].some((v) => typeof v === 'string' && fold(v).includes(fold(term))))
        .map((r) => r.ticker!)
        .sort();
    };
    const found = async (term: string) => (await walk(`/api/public/shares?search=${encodeURIComponent(term)}&per_page=100`)).rows.map((r) => r.asset).sort();

    for (const term of ['Сбербанк', 'газпром', 'нефть']) {
      it(`Cyrillic: ${term}`, async () => {
        const expected = await expectedTickers(term);
        expect(expected.length).toBeGreaterThan(0);
        expect(await found(term)).toEqual(expected);
      });
    }
    for (const term of ['sber', 'Gazprom', 'LKOH']) {
      it(`Latin: ${term}`, async () => {
        const expected = await expectedTickers(term);
        expect(expected.length).toBeGreaterThan(0);
        expect(await found(term)).toEqual(expected);
      });
    }
    it('by ISIN', async () => {
      const [one] = await sqlRows<{ ticker: string; isin: string }>(`select a.ticker, a.isin ${SHARES_FROM} and a.isin is not null order by a.ticker limit 1`);
      expect(await found(one!.isin)).toEqual(await expectedTickers(one!.isin));
      expect(await found(one!.isin)).toContain(one!.ticker);
    });
    it('nothing matches: an empty page, not an error', async () => {
      const body = await page('/api/public/shares?search=zzzz-no-such-share');
      expect(body.data).toEqual([]);
      expect(body.meta).toMatchObject({ total: 0, last_page: 1, from: null, to: null });
      expect(body.links.next).toBeNull();
    });
  });
});

describe('paging metadata and links', () => {
  it('a middle page: meta from the SQL total, links that keep the other parameters', async () => {
    const total = await sqlCount(`select count(*) as n ${SHARES_FROM}`);
    const last = Math.ceil(total / 7);
    const body = await page('/api/public/shares?sort=trading_volume&direction=asc&per_page=7&page=2');
    expect(body.meta).toEqual({ current_page: 2, per_page: 7, total, last_page: last, from: 8, to: 14 });
    expect(body.data).toHaveLength(7);
    const params = (u: string | null) => (u === null ? null : Object.fromEntries(new URL(u, base).searchParams));
    const keep = { sort: 'trading_volume', direction: 'asc', per_page: '7' };
    expect(params(body.links.first)).toEqual({ ...keep, page: '1' });
    expect(params(body.links.prev)).toEqual({ ...keep, page: '1' });
    expect(params(body.links.next)).toEqual({ ...keep, page: '3' });
    expect(params(body.links.last)).toEqual({ ...keep, page: String(last) });
    expect(new URL(body.links.next!, base).pathname).toBe('/api/public/shares');
  });

  it('the last page and a page past the end', async () => {
    const total = await sqlCount(`select count(*) as n ${SHARES_FROM}`);
    const last = Math.ceil(total / 10);
    const lastPage = await page(`/api/public/shares?per_page=10&page=${last}`);
    expect(lastPage.meta).toMatchObject({ current_page: last, from: (last - 1) * 10 + 1, to: total });
    expect(lastPage.data).toHaveLength(total - (last - 1) * 10);
    expect(lastPage.links.next).toBeNull();

    const past = await page(`/api/public/shares?per_page=10&page=${last + 5}`);
    expect(past.data).toEqual([]);
    expect(past.meta).toMatchObject({ current_page: last + 5, total, last_page: last, from: null, to: null });
    expect(past.links.next).toBeNull();
  });

  it('links of a Cyrillic search lead to the next page of the same search', async () => {
    const first = await page(`/api/public/shares?search=${encodeURIComponent('газпром')}&per_page=1`);
    expect(first.meta.total).toBeGreaterThan(1);
    const second = await page(first.links.next!);
    expect(second.meta.current_page).toBe(2);
    expect(second.meta.total).toBe(first.meta.total);
    expect(second.data[0]!.id).not.toBe(first.data[0]!.id);
  });
});

describe('GET /api/shares (authenticated)', () => {
  const unauthenticated = { message: 'Unauthenticated.' };
  const cases: [string, () => Promise<Record<string, string>>][] = [
    ['no Authorization header', async () => ({})],
    ['not a bearer', async () => ({ authorization: 'Basic dXNlcjpwYXNz' })],
    ['malformed token', async () => ({ authorization: 'Bearer not-a-jwt' })],
    ['empty bearer', async () => ({ authorization: 'Bearer ' })],
    ['expired token', async () => ({ authorization: `Bearer ${await mintDevToken('user-1', SECRET, -120)}` })],
    ['wrong signature', async () => ({ authorization: `Bearer ${await mintDevToken('user-1', 'some-other-secret-0123456789-0123456789')}` })],
    [
      'tampered payload',
      async () => {
        const [h, , s] = (await mintDevToken('user-1', SECRET)).split('.');
        return { authorization: `Bearer ${h}.${Buffer.from('{"sub":"admin","exp":9999999999}').toString('base64url')}.${s}` };
      },
    ],
  ];
  for (const [name, headers] of cases) {
    it(`401 for ${name}`, async () => {
      const res = await call('/api/shares', await headers());
      expect(res.status).toBe(401);
      expect(res.body).toEqual(unauthenticated);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    });
  }

  it('200 with a valid token: the same rows and meta as the public screener', async () => {
    const token = await mintDevToken('user-42', SECRET);
    const query = '?sort=dividend_yield&direction=desc&per_page=25&page=2';
    const authed = await page(`/api/shares${query}`, { authorization: `Bearer ${token}` });
    const open = await page(`/api/public/shares${query}`);
    expect(authed.data).toEqual(open.data);
    expect(authed.meta).toEqual(open.meta);
    expect(new URL(authed.links.next!, base).pathname).toBe('/api/shares');
  });
});

describe('validation at the edge (422 naming the field)', () => {
  const cases: [string, string][] = [
    ['sort=name', 'sort'],
    ['sort=market_cap;drop', 'sort'],
    ['direction=up', 'direction'],
    ['page=0', 'page'],
    ['page=-3', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['per_page=101', 'per_page'],
    ['per_page=0', 'per_page'],
    ['country_code=RUS', 'country_code'],
    ['country_code=R1', 'country_code'],
    ['country_code=%D0%A0%D0%A4', 'country_code'],
    ['dividend_yield_min=-1', 'dividend_yield_min'],
    ['dividend_yield_min=1e2', 'dividend_yield_min'],
    ['dividend_yield_max=1001', 'dividend_yield_max'],
    ['dividend_yield_min=10&dividend_yield_max=5', 'dividend_yield_max'],
    ['market_cap_min=abc', 'market_cap_min'],
    ['market_cap_max=0x10', 'market_cap_max'],
    ['market_cap_min=2000&market_cap_max=1000', 'market_cap_max'],
  ];
  for (const [query, field] of cases) {
    it(`${query} -> 422 on ${field}, without asking the screener`, async () => {
      const id = `v422-${uniqueName('q').replace(/_/g, '-')}`;
      for (const path of ['/api/public/shares', '/api/shares']) {
        const headers: Record<string, string> = { 'x-request-id': id };
        if (path === '/api/shares') headers.authorization = `Bearer ${await mintDevToken('u', SECRET)}`;
        const res = await call<{ message: string; errors: Record<string, string[]> }>(`${path}?${query}`, headers);
        expect(res.status).toBe(422);
        expect(Object.keys(res.body).sort()).toEqual(['errors', 'message']);
        expect(typeof res.body.message).toBe('string');
        expect(Object.keys(res.body.errors)).toEqual([field]);
        expect(res.body.errors[field]!.every((m) => typeof m === 'string' && m.length > 0)).toBe(true);
      }
      expect(screenerLog.some((l) => l.includes(id))).toBe(false);
    });
  }

  it('several bad fields are all named', async () => {
    const res = await call<{ errors: Record<string, string[]> }>('/api/public/shares?sort=x&direction=y&per_page=500');
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['direction', 'per_page', 'sort']);
  });
});

describe('categories and countries', () => {
  it('GET /api/public/shares/categories: every category with its share count', async () => {
    const expected = await sqlRows<{ id: number; slug: string; name: string; n: string }>(
      `select c.id, c.slug, c.name, count(s.asset_id) as n from share_categories c left join shares s on s.category_id = c.id group by c.id`,
    );
    const res = await call<{ data: { id: number; slug: string; name: string; shares_count: number }[] }>('/api/public/shares/categories');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
    expect([...res.body.data].sort(byId)).toEqual(expected.map((c) => ({ id: c.id, slug: c.slug, name: c.name, shares_count: Number(c.n) })).sort(byId));
  });

  it('GET /api/public/shares/countries: countries with their share counts', async () => {
    const expected = await sqlRows<{ code: string; name: string; n: string }>(
      `select co.code, co.name, count(*) as n from countries co join shares s on s.country_code = co.code group by co.code`,
    );
    const res = await call<{ data: { code: string; name: string; shares_count: number }[] }>('/api/public/shares/countries');
    expect(res.status).toBe(200);
    const withShares = res.body.data.filter((c) => c.shares_count > 0);
    const byCode = (a: { code: string }, b: { code: string }) => a.code.localeCompare(b.code);
    expect(withShares.sort(byCode)).toEqual(expected.map((c) => ({ code: c.code, name: c.name, shares_count: Number(c.n) })).sort(byCode));
  });
});

describe('correlation across services', () => {
  it("a given X-Request-Id is echoed and shows up in the screener's log lines, with the user id", async () => {
    const id = 'e2e-trace-0001-abcdef';
    const token = await mintDevToken('user-trace', SECRET);
    const res = await call('/api/shares?per_page=3', { 'x-request-id': id, authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(id);
    const lines = screenerLog.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.correlationId === id);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.service === 'screener')).toBe(true);
    expect(lines.some((l) => String(l.subject).endsWith('screener.shares.list'))).toBe(true);
    expect(lines.every((l) => l.userId === 'user-trace')).toBe(true);
  });

  it('without a header the gateway makes one, and the screener logs the same one', async () => {
    const res = await call('/api/public/shares/categories');
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(screenerLog.some((l) => (JSON.parse(l) as { correlationId?: string }).correlationId === id)).toBe(true);
  });
});

describe('health and readiness', () => {
  it('/health and /ready are 200 with the screener running', async () => {
    expect(await call('/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await call('/ready')).toMatchObject({ status: 200, body: { status: 'ok', checks: { nats: 'ok', screener: 'ok' } } });
  });
});

describe('the screener not running', () => {
  let lonely: GatewayApp;
  let lonelyBase: string;
  const RPC_TIMEOUT_MS = 500;

  beforeAll(async () => {
    lonely = await createGatewayApp({
      natsUrl: testNatsUrl(),
      busPrefix: `${uniqueName('gwnobody')}.`,
      auth: { jwtSecret: SECRET },
      rpcTimeoutMs: RPC_TIMEOUT_MS,
      readyServices: ['screener'],
      readyTimeoutMs: 300,
      logger: createLogger('gateway', 'silent'),
    });
    lonelyBase = await lonely.listen(0, '127.0.0.1');
  });
  afterAll(() => lonely?.close());

  for (const path of ['/api/public/shares', '/api/public/shares/categories', '/api/public/shares/countries']) {
    it(`${path} -> 503 {message, outcome} within a bounded time`, async () => {
      const started = performance.now();
      const res = await fetch(lonelyBase + path);
      const elapsed = performance.now() - started;
      expect(res.status).toBe(503);
      const body = (await res.json()) as Record<string, unknown>;
      // Nobody listens: nothing was done.
      expect(Object.keys(body)).toEqual(['message', 'outcome']);
      expect(body.outcome).toBe('not_done');
      expect(String(body.message)).not.toMatch(/screener|nats|ms\b/i);
      expect(elapsed).toBeLessThan(RPC_TIMEOUT_MS + 1000);
    });
  }

  it('/api/shares still checks the token first (401), then 503', async () => {
    expect((await fetch(`${lonelyBase}/api/shares`)).status).toBe(401);
    const res = await fetch(`${lonelyBase}/api/shares`, { headers: { authorization: `Bearer ${await mintDevToken('u', SECRET)}` } });
    expect(res.status).toBe(503);
  });

  it('validation still answers 422 without the screener', async () => {
    expect((await fetch(`${lonelyBase}/api/public/shares?per_page=1000`)).status).toBe(422);
  });

  it('/ready is 503 naming the screener; /health stays 200', async () => {
    const ready = await fetch(`${lonelyBase}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ failed: ['screener'], checks: { nats: 'ok' } });
    expect((await fetch(`${lonelyBase}/health`)).status).toBe(200);
  });

  it('unknown routes are 404 {message}', async () => {
    const res = await fetch(`${lonelyBase}/api/public/sharez`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Not Found.' });
  });
});
