/**
 * Local stand-ins for the market-data providers, speaking their real wire formats from the real captures in
 * `test/fixtures/` (see its README): MOEX ISS board, market and dividends endpoints, and CoinGecko
 * `coins/markets`. Tests change values, drop or add columns and queue faults (429, 403, HTML with 200,
 * 5xx, slow answers); `npm start` runs one as its demo market (`demo-providers.ts`) and `npm run providers:fake`
 * one on a fixed port, both in "live" mode (drifting prices).
 */
import { readFileSync, existsSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { dateInZone, zonedParts } from '@invest/platform/time/zoned-time';
import { screenerPackageRoot } from '../package-root.js';
import { fakeIssHistory } from './fake-iss-history.js';

type Cell = unknown;
export interface IssBlock {
  metadata?: Record<string, unknown>;
  columns: string[];
  data: Cell[][];
}
export type IssDoc = Record<string, IssBlock>;
type Coin = Record<string, unknown>;

/** The ISS markets the fake serves, by `{engine}/{market}`. */
export type FakeMarket = 'shares' | 'bonds' | 'futures' | 'currency';
const MARKET_ROUTES: Record<string, FakeMarket> = {
  'stock/shares': 'shares',
  'stock/bonds': 'bonds',
  'futures/forts': 'futures',
  'currency/selt': 'currency',
};
const MARKET_FILES: Record<FakeMarket, string> = {
  shares: 'moex-iss/shares.json',
  bonds: 'moex-iss/bonds.json',
  futures: 'moex-iss/futures-forts.json',
  currency: 'moex-iss/currency-selt-cets.json',
};

/** Synthetic 7-day changes (the capture was taken without `price_change_percentage`). */
export const FAKE_COIN_7D: Record<string, number> = { bitcoin: -2.14, ethereum: 5.61, tether: 0.02, 'usd-coin': -0.01, binancecoin: 8.93 };

/** A misbehaviour served once to the next matching request. */
export interface Fault {
  status?: number;
  /** Serve an HTML page (with `status`, default 200): what ISS does for blocked and unknown requests. */
  html?: boolean;
  body?: string;
  contentType?: string;
  /** Wait this long before answering (longer than the client's timeout: a timeout). */
  delayMs?: number;
  retryAfterSeconds?: number;
}

export interface FakeRequest {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  at: number;
}

export interface FakeProvidersOptions {
  port?: number;
  host?: string;
  fixturesDir?: string;
  /** Prices move on every request and quote times are "now" (manual demo); default false (captures as they are). */
  live?: boolean;
  /** Keep every request in `requests` (default true); a long-running demo that never reads them says false. */
  recordRequests?: boolean;
}

const clone = <T>(v: T): T => structuredClone(v);

export class FakeProviders {
  readonly requests: FakeRequest[] = [];
  private docs = {} as Record<FakeMarket, IssDoc>;
  private coins: Coin[] = [];
  private dividends = new Map<string, unknown>();
  private faults: { match: RegExp; fault: Fault }[] = [];
  private transforms: { match: RegExp; fn: (doc: unknown, req: FakeRequest) => unknown }[] = [];
  private tick = 0;

  private constructor(
    private readonly server: Server,
    private readonly fixturesDir: string,
    private readonly live: boolean,
    private readonly recordRequests: boolean,
  ) {}

  static async start(opts: FakeProvidersOptions = {}): Promise<FakeProviders> {
    const server = createServer();
    const fake = new FakeProviders(server, opts.fixturesDir ?? join(screenerPackageRoot(), 'test', 'fixtures'), opts.live ?? false, opts.recordRequests ?? true);
    fake.reset();
    server.on('request', (req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
    });
    return fake;
  }

  get origin(): string {
    const a = this.server.address() as AddressInfo;
    return `http://${a.address.includes(':') ? `[${a.address}]` : a.address}:${a.port}`;
  }
  /** `MOEX_ISS_URL` of this server. */
  get moexUrl(): string {
    return `${this.origin}/iss`;
  }
  /** `COINGECKO_URL` of this server. */
  get coingeckoUrl(): string {
    return `${this.origin}/api/v3`;
  }

  /** Back to the captures, no faults, no transforms, no request log. */
  reset(): void {
    for (const [market, file] of Object.entries(MARKET_FILES) as [FakeMarket, string][]) this.docs[market] = this.readFixture(file) as IssDoc;
    this.coins = this.readFixture('coingecko/coins-markets.json') as Coin[];
    this.dividends.clear();
    this.faults = [];
    this.transforms = [];
    this.requests.length = 0;
  }

  /** Queues faults for the next requests whose path (with query) matches; each is served once, in order. */
  fail(match: RegExp | string, ...faults: Fault[]): void {
    const re = typeof match === 'string' ? new RegExp(match.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : match;
    for (const fault of faults) this.faults.push({ match: re, fault });
  }

  /** Rewrites every JSON answer whose path matches, until reset (schema drift, odd values). */
  transform(match: RegExp, fn: (doc: unknown, req: FakeRequest) => unknown): void {
    this.transforms.push({ match, fn });
  }

  /** Drops every transform (the documents stay as they are). */
  clearTransforms(): void {
    this.transforms = [];
  }

  /** The stored document of a market (mutate it to change what every later answer says). */
  doc(market: FakeMarket): IssDoc {
    return this.docs[market];
  }

  /** Sets one cell of a market document (the column is added, null elsewhere, when it is new). */
  setCell(market: FakeMarket, block: 'securities' | 'marketdata', secid: string, board: string, column: string, value: Cell): void {
    const b = this.docs[market][block];
    if (!b) throw new Error(`no block ${block} in ${market}`);
    let col = b.columns.indexOf(column);
    if (col < 0) {
      b.columns.push(column);
      for (const row of b.data) row.push(null);
      col = b.columns.length - 1;
    }
    const row = b.data.find((r) => r[b.columns.indexOf('SECID')] === secid && (b.columns.indexOf('BOARDID') < 0 || r[b.columns.indexOf('BOARDID')] === board));
    if (!row) throw new Error(`no ${block} row ${secid}/${board} in ${market}`);
    row[col] = value;
  }

  /** Reads one cell of a market document, by hand (tests compare with it). */
  cell(market: FakeMarket, block: 'securities' | 'marketdata', secid: string, board: string, column: string): Cell {
    const b = this.docs[market][block]!;
    const row = b.data.find((r) => r[b.columns.indexOf('SECID')] === secid && r[b.columns.indexOf('BOARDID')] === board);
    return row?.[b.columns.indexOf(column)];
  }

  /** Changes fields of one coin of the coins/markets answer. */
  setCoin(id: string, patch: Coin): void {
    const coin = this.coins.find((c) => c.id === id);
    if (!coin) throw new Error(`no coin ${id}`);
    Object.assign(coin, patch);
  }

  /** What `/securities/{SECID}/dividends.json` answers (a whole document); unset: the fixture file or an empty block. */
  setDividends(secid: string, doc: unknown): void {
    this.dividends.set(secid.toUpperCase(), doc);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private readFixture(name: string): unknown {
    return JSON.parse(readFileSync(join(this.fixturesDir, name), 'utf8'));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const request: FakeRequest = { path: url.pathname, query: url.searchParams, headers: req.headers, at: Date.now() };
    if (this.recordRequests) this.requests.push(request);
    const target = `${url.pathname}${url.search}`;
    const faultAt = this.faults.findIndex((f) => f.match.test(target));
    if (faultAt >= 0) {
      const { fault } = this.faults.splice(faultAt, 1)[0]!;
      if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (fault.status || fault.html || fault.body !== undefined) return this.sendFault(res, fault);
    }
    try {
      const body = this.route(request);
      if (body === undefined) {
        // ISS answers unknown routes with an HTML page and status 200; CoinGecko with a JSON 404.
        if (url.pathname.startsWith('/iss/')) return this.send(res, 200, 'text/html; charset=utf-8', '<!DOCTYPE html><html><body><h1>Страница не найдена</h1></body></html>');
        return this.send(res, 404, 'application/json', JSON.stringify({ error: 'Not Found' }));
      }
      const status = body !== null && typeof body === 'object' && 'error' in body ? 400 : 200;
      let out: unknown = body;
      for (const t of this.transforms) if (t.match.test(target)) out = t.fn(out, request);
      this.send(res, status, 'application/json; charset=utf-8', JSON.stringify(out));
    } catch (err) {
      this.send(res, 500, 'text/plain', `fake provider error: ${(err as Error).message}`);
    }
  }

  private sendFault(res: ServerResponse, fault: Fault): void {
    const status = fault.status ?? 200;
    if (fault.retryAfterSeconds) res.setHeader('retry-after', String(fault.retryAfterSeconds));
    if (fault.body !== undefined) return this.send(res, status, fault.contentType ?? 'application/json', fault.body);
    if (fault.html || status === 403) {
      return this.send(res, status, 'text/html; charset=utf-8', '<html><head><title>Access denied</title></head><body>Доступ ограничен</body></html>');
    }
    if (status === 429) {
      return this.send(res, 429, 'application/json', JSON.stringify({ status: { error_code: 429, error_message: "You've exceeded the Rate Limit." } }));
    }
    this.send(res, status, 'text/plain', `HTTP ${status}`);
  }

  private send(res: ServerResponse, status: number, type: string, body: string): void {
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }

  private route(req: FakeRequest): unknown {
    let m = /^\/iss\/engines\/([\w-]+)\/markets\/([\w-]+)(?:\/boards\/([\w-]+))?\/securities\.json$/.exec(req.path);
    if (m) {
      const market = MARKET_ROUTES[`${m[1]}/${m[2]}`];
      if (!market) return undefined;
      return this.issMarket(market, m[3] ?? null, req.query);
    }
    m = /^\/iss\/history\/engines\/([\w-]+)\/markets\/([\w-]+)\/boards\/([\w-]+)\/securities\/([\w.-]+)\.json$/.exec(req.path);
    if (m) {
      const market = MARKET_ROUTES[`${m[1]}/${m[2]}`];
      return market ? fakeIssHistory(this.docs[market], m[3]!, m[4]!, req.query) : undefined;
    }
    m = /^\/iss\/securities\/([\w.-]+)\/dividends\.json$/.exec(req.path);
    if (m) return this.issDividends(m[1]!, req.query);
    if (req.path === '/api/v3/coins/markets') return this.coinMarkets(req.query);
    return undefined;
  }

  private issMarket(market: FakeMarket, board: string | null, q: URLSearchParams): IssDoc {
    const doc = this.docs[market];
    const only = q.get('iss.only')?.split(',').map((s) => s.trim());
    const secids = q.get('securities')?.split(',').map((s) => s.trim()).filter(Boolean);
    const tick = ++this.tick;
    const out: IssDoc = {};
    for (const [name, block] of Object.entries(doc)) {
      if (only && !only.includes(name)) continue;
      const sec = block.columns.indexOf('SECID');
      const brd = block.columns.indexOf('BOARDID');
      let data = block.data;
      if (board && brd >= 0) data = data.filter((r) => r[brd] === board);
      if (secids && sec >= 0) data = data.filter((r) => secids.includes(String(r[sec])));
      const next: IssBlock = {
        ...(q.get('iss.meta') === 'off' ? {} : { metadata: block.metadata ?? {} }),
        columns: [...block.columns],
        data: data.map((r) => [...r]),
      };
      if (this.live && name === 'marketdata') drift(next, tick);
      out[name] = next;
    }
    return out;
  }

  private issDividends(secid: string, q: URLSearchParams): unknown {
    const key = secid.toUpperCase();
    let doc: unknown = this.dividends.get(key);
    if (doc === undefined) {
      const file = join(this.fixturesDir, 'moex-iss', 'dividends', `${key}.json`);
      doc = existsSync(file)
        ? JSON.parse(readFileSync(file, 'utf8'))
        : { dividends: { columns: ['secid', 'isin', 'registryclosedate', 'value', 'currencyid'], data: [] } };
    }
    const only = q.get('iss.only')?.split(',').map((s) => s.trim());
    if (!only || !doc || typeof doc !== 'object') return doc;
    // iss.only keeps the named blocks; a card without them stays a card (what the real endpoint was seen doing).
    const kept = Object.fromEntries(Object.entries(doc as Record<string, unknown>).filter(([k]) => only.includes(k)));
    return Object.keys(kept).length ? kept : doc;
  }

  private coinMarkets(q: URLSearchParams): unknown {
    if (!q.get('vs_currency')) return { error: 'Missing parameter vs_currency' };
    const ids = q.get('ids')?.split(',').map((s) => s.trim()).filter(Boolean);
    const wanted = (q.get('price_change_percentage') ?? '').split(',').map((s) => s.trim());
    const perPage = Math.min(250, Number(q.get('per_page') ?? 100) || 100);
    const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
    const tick = ++this.tick;
    const coins = clone(this.coins)
      .filter((c) => !ids || ids.includes(String(c.id)))
      .slice((page - 1) * perPage, page * perPage);
    return coins.map((c) => {
      const out: Coin = { ...c };
      if (this.live && typeof c.current_price === 'number') {
        out.current_price = +(c.current_price * factor(tick, String(c.id))).toPrecision(8);
        out.last_updated = new Date().toISOString();
      }
      if (wanted.includes('24h')) out.price_change_percentage_24h_in_currency = c.price_change_percentage_24h ?? null;
      if (wanted.includes('7d')) out.price_change_percentage_7d_in_currency = FAKE_COIN_7D[String(c.id)] ?? null;
      return out;
    });
  }
}

/** A deterministic wobble of ±1 % per request and security (demo mode). */
function factor(tick: number, key: string): number {
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.charCodeAt(0)) | 0;
  return 1 + 0.01 * Math.sin(tick + (h % 1000));
}

/** Demo mode: prices, capitalisation and turnover move a little, and the quote time is now (Moscow). */
function drift(block: IssBlock, tick: number): void {
  const col = (name: string) => block.columns.indexOf(name);
  const now = new Date();
  const p = zonedParts(now, 'Europe/Moscow');
  const time = [p.hour, p.minute, p.second].map((n) => String(n).padStart(2, '0')).join(':');
  const systime = `${dateInZone(now, 'Europe/Moscow')} ${time}`;
  for (const row of block.data) {
    const f = factor(tick, String(row[col('SECID')]));
    for (const name of ['LAST', 'LCURRENTPRICE', 'WAPRICE', 'SETTLEPRICE']) {
      const i = col(name);
      if (i >= 0 && typeof row[i] === 'number') row[i] = +((row[i] as number) * f).toPrecision(8);
    }
    for (const name of ['ISSUECAPITALIZATION', 'VALTODAY']) {
      const i = col(name);
      if (i >= 0 && typeof row[i] === 'number') row[i] = Math.round((row[i] as number) * f);
    }
    const ltp = col('LASTTOPREVPRICE');
    if (ltp >= 0 && typeof row[ltp] === 'number') row[ltp] = +((row[ltp] as number) + (f - 1) * 100).toFixed(2);
    if (col('SYSTIME') >= 0) row[col('SYSTIME')] = systime;
    if (col('UPDATETIME') >= 0) row[col('UPDATETIME')] = time;
  }
}
