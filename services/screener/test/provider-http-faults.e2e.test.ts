/**
 * Provider HTTP misbehaviour below the level the fake providers' faults reach (a body that never ends, a partial
 * body, a dividends cursor that lies). A local proxy sits in front of the fake providers and misbehaves for matching
 * paths; everything else is forwarded.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JobOutcome, createLogger } from '@invest/platform';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScreenerApp } from '../src/screener.app.js';
import { FakeProviders } from '../src/testing/fake-providers.js';
import { type JobScreener, startJobScreener } from './support/job-screener.js';

const logger = createLogger('scr-http-faults', 'silent');

type Behaviour = (req: IncomingMessage, res: ServerResponse, upstream: () => Promise<{ status: number; type: string; body: string }>) => void | Promise<void>;

let fake: FakeProviders;
let proxy: Server;
let proxyUrl: string;
let stack: JobScreener;
let screener: ScreenerApp;
const rules: { match: RegExp; behave: Behaviour }[] = [];
const seen: string[] = [];

beforeAll(async () => {
  fake = await FakeProviders.start();
  proxy = createServer((req, res) => {
    seen.push(req.url ?? '');
    const upstream = async () => {
      const r = await fetch(`${fake.origin}${req.url}`);
      return { status: r.status, type: r.headers.get('content-type') ?? '', body: await r.text() };
    };
    const rule = rules.find((r) => r.match.test(req.url ?? ''));
    if (rule) return void rule.behave(req, res, upstream);
    void upstream().then((u) => {
      res.writeHead(u.status, { 'content-type': u.type });
      res.end(u.body);
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  stack = await startJobScreener('httpfaults', {
    fake,
    logger,
    providers: { MOEX_ISS_URL: `${proxyUrl}/iss`, COINGECKO_URL: `${proxyUrl}/api/v3`, PROVIDER_TIMEOUT_MS: 500, PROVIDER_RETRIES: 1, PROVIDER_BACKOFF_MS: 10 },
  });
  screener = stack.screener;
});

afterAll(async () => {
  await stack?.close();
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
  await fake?.close();
});

beforeEach(() => {
  fake.reset();
  rules.length = 0;
  seen.length = 0;
});

const run = (name: string, args: string[] = []): Promise<JobOutcome> => screener.runJob(name, args);
const rate = async (type: string, ticker: string) =>
  (await screener.db.query<{ rate: number }>(`select current_rate::float8 as rate from assets where type = $1 and ticker = $2`, [type, ticker]))[0]?.rate;

describe('bodies that never end or end early', () => {
  it('a TQBR answer whose body hangs after half of it: the run ends (timeout), nothing of TQBR written', async () => {
    await run('get:assetRates');
    const before = await rate('share', 'SBER');
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 777.7);
    rules.push({
      match: /\/boards\/TQBR\/securities\.json/,
      behave: async (_req, res, upstream) => {
        const u = await upstream();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(u.body.slice(0, Math.floor(u.body.length / 2)));
        // never ends
      },
    });
    const started = Date.now();
    const outcome = await run('get:assetRates');
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(outcome.status).toBe('done');
    expect(await rate('share', 'SBER')).toBe(before);
  }, 20_000);

  it('a TQBR answer cut short (connection closed mid-body): nothing of TQBR written, the rest refreshed', async () => {
    await run('get:assetRates');
    const before = await rate('share', 'SBER');
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 778.8);
    fake.setCell('shares', 'marketdata', 'AKGD', 'TQTF', 'LAST', 66.6);
    rules.push({
      match: /\/boards\/TQBR\/securities\.json/,
      behave: async (_req, res, upstream) => {
        const u = await upstream();
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(u.body)) });
        res.write(u.body.slice(0, 5000));
        res.socket?.destroy();
      },
    });
    const outcome = await run('get:assetRates');
    expect(outcome.status).toBe('done');
    expect(await rate('share', 'SBER')).toBe(before);
    expect(await rate('etf', 'AKGD')).toBe(66.6);
  }, 20_000);

  it('JSON with a trailing garbage / truncated document with a correct length: block skipped', async () => {
    await run('get:assetRates');
    const before = await rate('share', 'SBER');
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 779.9);
    rules.push({
      match: /\/boards\/TQBR\/securities\.json/,
      behave: async (_req, res, upstream) => {
        const u = await upstream();
        const body = u.body.slice(0, u.body.length - 3);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      },
    });
    const outcome = await run('get:assetRates');
    expect(outcome.status).toBe('done');
    expect(await rate('share', 'SBER')).toBe(before);
  });
});

describe('a dividends cursor', () => {
  const cols = ['secid', 'isin', 'registryclosedate', 'value', 'currencyid'];
  const iso = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

  it('that never advances (INDEX stays 0) is asked once more at most; the list is unknown and the stored records stay', async () => {
    fake.setDividends('SBER', { dividends: { columns: cols, data: [['SBER', 'RU0009029540', iso(200), 33, 'RUB']] } });
    expect((await run('update:shares-dividends', ['--only', 'SBER'])).status).toBe('done');
    seen.length = 0;
    rules.push({
      match: /\/securities\/SBER\/dividends\.json/,
      behave: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            dividends: { columns: cols, data: [['SBER', 'RU0009029540', iso(40), 10, 'RUB']] },
            'dividends.cursor': { columns: ['INDEX', 'TOTAL', 'PAGESIZE'], data: [[0, 500, 100]] },
          }),
        );
      },
    });
    const outcome = await run('update:shares-dividends', ['--only', 'SBER']);
    expect(outcome.status).toBe('done');
    const asked = seen.filter((u) => u.includes('/SBER/dividends.json'));
    // A cursor that says the same page again is a lie: one more request shows it, more would loop.
    expect(asked.length).toBeLessThanOrEqual(2);
    expect(outcome.status === 'done' && outcome.summary.notes?.join('\n')).toMatch(/dividends SBER: the dividends cursor does not advance/);
    const kept = await screener.db.query<{ d: string }>(
      `select record_date::text as d from dividends where asset_id = (select id from assets where type='share' and ticker='SBER')`,
    );
    expect(kept).toEqual([{ d: iso(200) }]);
  });

  it('promising more pages than are followed: the part read does not replace the stored records', async () => {
    // First a complete, honest list with a payment far in the future.
    fake.setDividends('GAZP', { dividends: { columns: cols, data: [['GAZP', 'RU0007661625', iso(200), 50, 'RUB']] } });
    expect((await run('update:shares-dividends', ['--only', 'GAZP'])).status).toBe('done');
    // Then an answer whose cursor says there are 5000 rows: the run reads only some pages and
    // must not treat what it read as the whole list.
    rules.push({
      match: /\/securities\/GAZP\/dividends\.json/,
      behave: (req, res) => {
        const start = Number(new URL(req.url!, 'http://x').searchParams.get('start') ?? 0);
        const data = Array.from({ length: 100 }, (_, i) => ['GAZP', 'RU0007661625', `20${String(10 + Math.floor((start + i) / 365)).padStart(2, '0')}-01-${String(((start + i) % 28) + 1).padStart(2, '0')}`, 1 + ((start + i) % 97) / 100, 'RUB']);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ dividends: { columns: cols, data }, 'dividends.cursor': { columns: ['INDEX', 'TOTAL', 'PAGESIZE'], data: [[start, 5000, 100]] } }));
      },
    });
    const outcome = await run('update:shares-dividends', ['--only', 'GAZP']);
    expect(outcome.status === 'done' && outcome.summary.notes?.join('\n')).toMatch(/dividends GAZP: the dividends cursor promises more than 10 pages/);
    const kept = await screener.db.query<{ n: number }>(
      `select count(*)::int as n from dividends where asset_id = (select id from assets where type='share' and ticker='GAZP') and record_date = $1`,
      [iso(200)],
    );
    expect(kept[0]!.n).toBe(1);
  });
});
