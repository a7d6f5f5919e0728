/**
 * Live market data end to end: the screener (real Postgres, real NATS/JetStream, demo data) reads the fake
 * providers (local HTTP servers serving the real captures and variants of them), writes rates, and its relay
 * publishes RatesUpdated to MARKET_EVENTS, which the test reads back. Expected values are read from the
 * fixtures by hand (`fake.cell`), never from the parser.
 */
import { randomUUID } from 'node:crypto';
import {
  type BusEvent,
  CustomAssetSubjects,
  ErrorCode,
  type ListSharesReply,
  type RatesUpdatedV1,
  type ShareRow,
  Subjects,
  eventSubject,
} from '@invest/contracts';
import { type Bus, type JobOutcome, RpcClient, ServiceError, busSubject, connectBus, createLogger, streamNameOf } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommands } from '../src/jobs/cli.js';
import { type ScreenerApp, createScreenerApp } from '../src/screener.app.js';
import { FAKE_COIN_7D, FakeProviders } from '../src/testing/fake-providers.js';

const logger = createLogger('screener-md', 'silent');
const busPrefix = `${uniqueName('scrmd')}.`;
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;

let fake: FakeProviders;
let db: { url: string; drop(): Promise<void> };
let screener: ScreenerApp;
let bus: Bus;
let rpc: RpcClient;

const providers = () => ({
  MOEX_ISS_URL: fake.moexUrl,
  COINGECKO_URL: fake.coingeckoUrl,
  COINGECKO_API_KEY: 'test-demo-key',
  MOEX_ISS_MIN_INTERVAL_MS: 0,
  MAIN_COINS: ['bitcoin', 'ethereum', 'tether', 'usd-coin', 'binancecoin'],
  PROVIDER_TIMEOUT_MS: 400,
  PROVIDER_RETRIES: 2,
  PROVIDER_BACKOFF_MS: 10,
});

beforeAll(async () => {
  fake = await FakeProviders.start();
  db = await createTestDatabase('scr_md');
  screener = await createScreenerApp({ databaseUrl: db.url, natsUrl: testNatsUrl(), busPrefix, logger, providers: providers(), relayPollMs: 50 });
  bus = await connectBus({ natsUrl: testNatsUrl(), name: 'screener-md-test', prefix: busPrefix });
  rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'screener-md-test', defaultTimeoutMs: 10_000, busPrefix });
  await rpc.connect();
});

afterAll(async () => {
  await rpc?.close();
  await screener?.close();
  if (bus) {
    for (const ctx of ['market', 'portfolios'] as const) await bus.jsm.streams.delete(streamNameOf(bus, ctx)).catch(() => undefined);
    await bus.close();
  }
  await fake?.close();
  await db?.drop();
});

// ---- helpers ----

type RatesEvent = BusEvent<RatesUpdatedV1>;

/** The messages of one event type on MARKET_EVENTS (RatesUpdated unless said). */
async function published<E = RatesEvent>(type = 'RatesUpdated'): Promise<E[]> {
  const stream = streamNameOf(bus, 'market');
  const { state } = await bus.jsm.streams.info(stream);
  const out: E[] = [];
  if (state.messages === 0) return out;
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const m = await bus.jsm.streams.getMessage(stream, { seq });
    if (m?.subject === busSubject(busPrefix, eventSubject('market', type))) out.push(m.json<E>());
  }
  return out;
}

/** Waits until the relay published every recorded event, then returns what was published after `before`. */
async function publishedSince(before: number): Promise<RatesEvent[]> {
  const [{ n }] = (await screener.db.query<{ n: number }>("select count(*)::int as n from es_events where type = 'RatesUpdated'")) as [{ n: number }];
  await expect.poll(async () => (await published()).length, { timeout: 5_000, interval: 50 }).toBe(n);
  return (await published()).slice(before);
}

const run = async (name: string, args: string[] = []): Promise<JobOutcome & { status: 'done' }> => {
  const outcome = await screener.runJob(name, args);
  if (outcome.status !== 'done') throw new Error(`${name} ${outcome.status}: ${outcome.status === 'failed' ? String(outcome.error) : ''}`);
  return outcome;
};

const asset = async (type: string, ticker: string) =>
  (
    await screener.db.query<{ id: string; rate: number | null; d24: number | null; d7: number | null; currency: string; board: string | null; quoted: number | null; at: string | null }>(
      `select id::text, current_rate::float8 as rate, price_change_percentage_24h::float8 as d24, price_change_percentage_7d::float8 as d7,
              currency, board, quoted_price::float8 as quoted, to_char(rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as at
       from assets where type = $1 and ticker = $2`,
      [type, ticker],
    )
  )[0];

const shareRow = async (ticker: string): Promise<ShareRow> => {
  const page = await rpc.request<ListSharesReply>(Subjects.screener.sharesList, { search: ticker, per_page: 100 });
  const row = page.data.find((r) => r.asset === ticker);
  if (!row) throw new Error(`${ticker} not listed`);
  return row;
};

const tickersOf = (events: RatesEvent[], type?: string) =>
  events.flatMap((e) => e.data.rates.filter((r) => !type || r.assetType === type).map((r) => r.ticker)).sort();

// ---- tests ----

describe('rates for every asset type', () => {
  it('publishes the demo load as one RatesUpdated of the seeded shares', async () => {
    const events = await publishedSince(0);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ version: 1, source: 'demo:moex-shares-2024-02-15' });
    expect(events[0]!.data.rates.find((r) => r.ticker === 'SBER')).toMatchObject({ assetType: 'share', rate: fake.cell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST') });
  });

  it('first full run: creates ETFs, bonds, futures, currencies and tokens with their rates; unchanged shares publish nothing', async () => {
    const before = (await published()).length;
    const { summary } = await run('get:assetRates');
    const events = await publishedSince(before);

    // The shares of the capture are the demo shares: nothing changed, nothing published for them.
    expect(tickersOf(events, 'share')).toEqual([]);
    const types = new Set(events.flatMap((e) => e.data.rates.map((r) => r.assetType)));
    expect([...types].sort()).toEqual(['bond', 'currency', 'etf', 'future', 'token']);
    // One event per provider batch (board response): no event mixes asset types.
    for (const e of events) expect(new Set(e.data.rates.map((r) => r.assetType)).size).toBe(1);
    expect(summary.changed).toBe(events.reduce((n, e) => n + e.data.rates.length, 0));

    // Bonds: percent of face value × FACEVALUE / 100 (SU26207RMFS9 on TQOB: 91.08 % of 1000).
    const last = fake.cell('bonds', 'marketdata', 'SU26207RMFS9', 'TQOB', 'LAST') as number;
    const face = fake.cell('bonds', 'securities', 'SU26207RMFS9', 'TQOB', 'FACEVALUE') as number;
    expect(await asset('bond', 'SU26207RMFS9')).toMatchObject({ rate: (last * face) / 100, quoted: last, currency: 'RUB', board: 'TQOB' });
    expect(await asset('etf', 'AKGD')).toMatchObject({
      rate: fake.cell('shares', 'marketdata', 'AKGD', 'TQTF', 'LAST'),
      d24: fake.cell('shares', 'marketdata', 'AKGD', 'TQTF', 'LASTTOPREVPRICE'),
      board: 'TQTF',
    });
    // Futures: the contract's value in roubles (112890 points / 10 × 18.36).
    expect(await asset('future', 'RIH4')).toMatchObject({ rate: 207266.04, quoted: 112890, currency: 'RUB' });
    expect(await asset('currency', 'USD000UTSTOM')).toMatchObject({ rate: 91.7325, currency: 'RUB', at: '2024-02-15T14:49:55Z' });
    expect(await asset('token', 'BTC')).toMatchObject({ rate: 16951.52, d24: 0.14088, d7: FAKE_COIN_7D.bitcoin, currency: 'USD' });

    // What was skipped is reported with reasons: TQPI fund units, bonds without any price.
    expect(summary.skipped).toBeGreaterThan(0);
    // By hand: TQPI rows of the capture whose SECTYPE is not a share type (1, 2, D).
    const sec = fake.doc('shares').securities!;
    const fundUnits = sec.data.filter((r) => r[sec.columns.indexOf('BOARDID')] === 'TQPI' && !['1', '2', 'D'].includes(String(r[sec.columns.indexOf('SECTYPE')])));
    expect(fundUnits).toHaveLength(7);
    for (const r of fundUnits) expect(summary.notes?.join('\n')).toMatch(new RegExp(`shares TQPI: \\d+ skipped \\(SECTYPE ${String(r[sec.columns.indexOf('SECTYPE')])} is not a share type\\): .*${String(r[sec.columns.indexOf('SECID')])}`));
    expect(summary.notes?.join('\n')).toMatch(/bonds TQOB: \d+ skipped \(no price/);

    // CoinGecko was asked for USD with the 24h and 7d changes, with the demo API key.
    const coinRequest = fake.requests.find((r) => r.path === '/api/v3/coins/markets')!;
    expect(coinRequest.query.get('vs_currency')).toBe('usd');
    expect(coinRequest.query.get('price_change_percentage')).toBe('24h,7d');
    expect(coinRequest.headers['x-cg-demo-api-key']).toBe('test-demo-key');
    // Board endpoints, not the market endpoint (except futures, which has one board).
    expect(fake.requests.some((r) => r.path === '/iss/engines/stock/markets/shares/boards/TQBR/securities.json')).toBe(true);
    expect(fake.requests.some((r) => r.path === '/iss/engines/currency/markets/selt/boards/CETS/securities.json')).toBe(true);
  });

  it('a second run with unchanged data publishes nothing', async () => {
    const before = (await published()).length;
    const { summary } = await run('get:assetRates');
    expect(summary.changed).toBe(0);
    expect(await publishedSince(before)).toEqual([]);
    const coins = await run('command:GetMainCoinsRates');
    expect(coins.summary).toMatchObject({ fetched: 5, changed: 0 });
    expect(await publishedSince(before)).toEqual([]);
  });

  it('a run with changed data publishes exactly the changed assets', async () => {
    const before = (await published()).length;
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 301.25);
    fake.setCell('shares', 'marketdata', 'GAZP', 'TQBR', 'LASTTOPREVPRICE', -1.75);
    // SBER's odd-lot board changes too: it must not matter.
    fake.setCell('shares', 'marketdata', 'SBER', 'SMAL', 'LAST', 1);
    fake.setCoin('bitcoin', { current_price: 17000.5 });
    const { summary } = await run('get:assetRates');
    const events = await publishedSince(before);
    expect(tickersOf(events)).toEqual(['BTC', 'GAZP', 'SBER']);
    expect(summary.changed).toBe(3);
    const sber = events.flatMap((e) => e.data.rates).find((r) => r.ticker === 'SBER')!;
    expect(sber).toMatchObject({ assetType: 'share', rate: 301.25, currency: 'RUB', priceChangePercentage24h: fake.cell('shares', 'marketdata', 'SBER', 'TQBR', 'LASTTOPREVPRICE') });
    expect(sber.assetId).toBe(Number((await asset('share', 'SBER'))!.id));
    expect(events.flatMap((e) => e.data.rates).find((r) => r.ticker === 'GAZP')).toMatchObject({ priceChangePercentage24h: -1.75 });
    // The screener list shows it.
    expect(await shareRow('SBER')).toMatchObject({ current_rate: 301.25 });
    expect(await shareRow('GAZP')).toMatchObject({ price_change_percentage_24h: -1.75 });
  });
});

describe('provider failures never corrupt stored data', () => {
  const tqbr = /\/boards\/TQBR\/securities\.json/;

  it('retries after 429 and lands the new values', async () => {
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 302);
    const asked = fake.requests.length;
    fake.fail(tqbr, { status: 429 });
    await run('get:assetRates');
    expect((await asset('share', 'SBER'))!.rate).toBe(302);
    expect(fake.requests.slice(asked).filter((r) => tqbr.test(r.path))).toHaveLength(2);
  });

  it.each([
    ['HTML with status 200', [{ html: true }], /expected JSON, got text\/html/],
    ['403 on every attempt', [{ status: 403 }, { status: 403 }, { status: 403 }], /throttled \(HTTP 403\)/],
    ['no answer within the timeout', [{ delayMs: 1_000 }, { delayMs: 1_000 }, { delayMs: 1_000 }], /no answer within 400 ms/],
    ['503 on every attempt', [{ status: 503 }, { status: 503 }, { status: 503 }], /HTTP 503/],
  ])('keeps the last good values on %s, and says why', async (_name, faults, reason) => {
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 999);
    const before = (await published()).length;
    fake.fail(tqbr, ...faults);
    const { summary } = await run('get:assetRates');
    expect((await asset('share', 'SBER'))!.rate).toBe(302);
    expect(summary.notes?.find((n) => n.startsWith('shares TQBR:'))).toMatch(reason);
    expect(summary.notes?.find((n) => n.startsWith('shares TQBR:'))).toMatch(/last values kept/);
    expect(summary.skipped).toBeGreaterThan(0);
    expect(tickersOf(await publishedSince(before), 'share')).toEqual([]);
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 302);
  });

  it('skips a block that lost SECID, with the reason; ignores extra columns', async () => {
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 303);
    const dropSecid = (doc: unknown) => {
      const d = doc as Record<string, { columns: string[]; data: unknown[][] }>;
      const md = d.marketdata!;
      const i = md.columns.indexOf('SECID');
      return { ...d, marketdata: { columns: md.columns.filter((_, j) => j !== i), data: md.data.map((r) => r.filter((_, j) => j !== i)) } };
    };
    fake.transform(tqbr, dropSecid);
    const { summary } = await run('get:assetRates');
    expect(summary.notes?.find((n) => n.startsWith('shares TQBR:'))).toMatch(/lacks required column\(s\) SECID/);
    expect((await asset('share', 'SBER'))!.rate).toBe(302);

    fake.clearTransforms();
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'BRAND_NEW_COLUMN_2031', 'x');
    fake.setCell('shares', 'securities', 'SBER', 'TQBR', 'ANOTHER_NEW_COLUMN', 42);
    await run('get:assetRates');
    expect((await asset('share', 'SBER'))!.rate).toBe(303);
  });

  it('a null price never overwrites a good one', async () => {
    const cells = [
      ['marketdata', 'LAST'],
      ['marketdata', 'LCURRENTPRICE'],
      ['marketdata', 'MARKETPRICE'],
      ['securities', 'PREVPRICE'],
      ['securities', 'PREVLEGALCLOSEPRICE'],
    ] as const;
    const saved = cells.map(([block, column]) => fake.cell('shares', block, 'SBER', 'TQBR', column));
    for (const [block, column] of cells) fake.setCell('shares', block, 'SBER', 'TQBR', column, null);
    const { summary } = await run('get:assetRates');
    expect(summary.notes?.join('\n')).toMatch(/shares TQBR: 1 skipped \(no price.*\): SBER/);
    expect((await asset('share', 'SBER'))!.rate).toBe(303);
    cells.forEach(([block, column], i) => fake.setCell('shares', block, 'SBER', 'TQBR', column, saved[i]));
  });

  it('a CoinGecko error object is a skipped block, not data', async () => {
    fake.fail('/api/v3/coins/markets', { status: 200, body: JSON.stringify({ status: { error_code: 10002, error_message: 'API Key Missing' } }) });
    const { summary } = await run('command:GetMainCoinsRates').catch((e: unknown) => ({ summary: { notes: [String(e)] } }));
    expect(summary.notes?.join('\n')).toMatch(/instead of an array/);
    expect((await asset('token', 'BTC'))!.rate).toBe(17000.5);
  });

  it('fails the run (CLI exit code 1) when no provider answers', async () => {
    const lines: string[] = [];
    const commands = createCommands(
      {
        SCREENER_DATABASE_URL: db.url,
        LOG_LEVEL: 'silent',
        MOEX_ISS_URL: 'http://127.0.0.1:9/iss',
        COINGECKO_URL: 'http://127.0.0.1:9/api/v3',
        MOEX_ISS_MIN_INTERVAL_MS: '0',
        PROVIDER_RETRIES: '1',
        PROVIDER_BACKOFF_MS: '5',
      },
      { write: (l) => lines.push(l) },
    );
    expect(await commands['get:assetRates']!([])).toBe(1);
    expect(lines.join('\n')).toMatch(/no source answered usably.*request failed/);
    expect((await asset('share', 'SBER'))!.rate).toBe(303);
    expect(await commands['get:assetRates']!(['--bogus'])).toBe(1);
  });
});

describe('used assets (PositionOpened/PositionClosed from PORTFOLIOS_EVENTS)', () => {
  // Each portfolio's events are one stream: positions grow per portfolio, as the event store numbers them.
  const positions = new Map<string, number>();
  const publishPortfolioEvent = async (type: string, data: Record<string, unknown>) => {
    const streamName = `portfolio-${String(data.portfolioId)}`;
    const streamPosition = (positions.get(streamName) ?? 0) + 1;
    positions.set(streamName, streamPosition);
    const event = { id: randomUUID(), type, streamName, streamPosition, recordedAt: new Date().toISOString(), data, metadata: {} };
    await bus.js.publish(busSubject(busPrefix, eventSubject('portfolios', type, Number(data.portfolioId))), JSON.stringify(event), { msgID: event.id });
  };
  const used = () => screener.db.query<{ source: string; ref: string; asset_id: string }>('select source, ref, asset_id::text from used_assets order by ref');

  it('refreshes only the assets with open positions, asking ISS for those SECIDs', async () => {
    const sber = (await asset('share', 'SBER'))!;
    const btc = (await asset('token', 'BTC'))!;
    await publishPortfolioEvent('PortfolioCreated', { version: 1, portfolioId: 7, userId: ALICE, name: 'x', currencyCode: 'RUB' });
    await publishPortfolioEvent('PositionOpened', { version: 1, portfolioId: 7, userId: ALICE, asset: { type: 'share', id: Number(sber.id) } });
    await publishPortfolioEvent('PositionOpened', { version: 1, portfolioId: 8, userId: ALICE, asset: { type: 'token', id: Number(btc.id) } });
    await expect.poll(async () => (await used()).length, { timeout: 5_000 }).toBe(2);
    expect(await used()).toEqual([
      { source: 'portfolio', ref: '7', asset_id: sber.id },
      { source: 'portfolio', ref: '8', asset_id: btc.id },
    ]);

    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 304);
    fake.setCell('shares', 'marketdata', 'LKOH', 'TQBR', 'LAST', 9999);
    fake.setCoin('bitcoin', { current_price: 17100 });
    const asked = fake.requests.length;
    const before = (await published()).length;
    const { summary } = await run('get:assetRates', ['--only_used_assets']);
    const requests = fake.requests.slice(asked);
    expect(requests.map((r) => r.path)).toEqual(['/iss/engines/stock/markets/shares/boards/TQBR/securities.json', '/api/v3/coins/markets']);
    expect(requests[0]!.query.get('securities')).toBe('SBER');
    expect(requests[1]!.query.get('ids')).toBe('bitcoin');
    expect(summary).toMatchObject({ fetched: 2, changed: 2 });
    expect(tickersOf(await publishedSince(before))).toEqual(['BTC', 'SBER']);
    expect((await asset('share', 'LKOH'))!.rate).not.toBe(9999);
  });

  it('forgets closed positions and deleted portfolios', async () => {
    const sber = (await asset('share', 'SBER'))!;
    await publishPortfolioEvent('PositionClosed', { version: 1, portfolioId: 7, userId: ALICE, asset: { type: 'share', id: Number(sber.id) } });
    await publishPortfolioEvent('PortfolioDeleted', { version: 1, portfolioId: 8, userId: ALICE });
    await expect.poll(async () => (await used()).length, { timeout: 5_000 }).toBe(0);
    const asked = fake.requests.length;
    const { summary } = await run('get:assetRates', ['--only_used_assets']);
    expect(summary).toMatchObject({ fetched: 0, changed: 0, skipped: 0 });
    expect(fake.requests.length).toBe(asked);
  });
});

describe('update:shares-market-stats and get:assetRates through the command line', () => {
  it('updates what the share list shows, main-board row only', async () => {
    const lines: string[] = [];
    const commands = createCommands(
      { SCREENER_DATABASE_URL: db.url, LOG_LEVEL: 'silent', MOEX_ISS_URL: fake.moexUrl, COINGECKO_URL: fake.coingeckoUrl, MOEX_ISS_MIN_INTERVAL_MS: '0' },
      { write: (l) => lines.push(l) },
    );
    const gazpCap = fake.cell('shares', 'marketdata', 'GAZP', 'TQBR', 'ISSUECAPITALIZATION');
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'ISSUECAPITALIZATION', 7_000_000_000_000);
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'VALTODAY', 123_456_789);
    fake.setCell('shares', 'marketdata', 'SBER', 'SMAL', 'VALTODAY', 1);
    // A null never replaces a stored value.
    fake.setCell('shares', 'marketdata', 'GAZP', 'TQBR', 'ISSUECAPITALIZATION', null);
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 305.5);

    expect(await commands['update:shares-market-stats']!([])).toBe(0);
    expect(lines.at(-1) ?? '').not.toMatch(/failed/);
    expect(lines.find((l) => l.startsWith('update:shares-market-stats:'))).toMatch(/^update:shares-market-stats: fetched \d+, changed 1, skipped 0, took \d+ ms$/);
    expect(await commands['get:assetRates']!([])).toBe(0);

    const sber = await shareRow('SBER');
    expect(sber).toMatchObject({ market_cap: 7_000_000_000_000, trading_volume: 123_456_789, current_rate: 305.5 });
    expect((await shareRow('GAZP')).market_cap).toBe(gazpCap);
  });
});

describe('dividends from ISS', () => {
  const dividends = (ticker: string) =>
    screener.db.query<{ d: string; value: number; currency: string; source: string }>(
      `select to_char(record_date, 'YYYY-MM-DD') as d, value::float8 as value, currency, source from dividends
       where asset_id = (select id from assets where type = 'share' and ticker = $1) order by record_date`,
      [ticker],
    );
  const synced = async (ticker: string) =>
    (
      await screener.db.query<{ at: string | null }>(
        `select dividends_synced_at::text as at from shares where asset_id = (select id from assets where type = 'share' and ticker = $1)`,
        [ticker],
      )
    )[0]!.at;

  it('replaces known lists, keeps unknown ones, and the yield follows', async () => {
    const lkohBefore = await dividends('LKOH');
    const lkohSynced = await synced('LKOH');
    expect(lkohBefore.length).toBeGreaterThan(0);
    // A future payment, so the 12-month yield has something to count.
    const today = new Date().toISOString().slice(0, 10);
    const future = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    fake.setDividends('SBER', {
      dividends: {
        columns: ['secid', 'isin', 'registryclosedate', 'value', 'currencyid'],
        data: [
          ['SBER', 'RU0009029540', '2023-05-11', 25, 'SUR'],
          ['SBER', 'RU0009029540', future, 33.3, 'SUR'],
          ['SBER', 'RU0009029540', future, 33.3, 'RUB'],
          ['SBER', 'RU0009029540', today, 0, 'RUB'],
        ],
      },
    });
    const { summary } = await run('update:shares-dividends', ['--only', 'SBER,LKOH,GAZP']);
    expect(summary).toMatchObject({ fetched: 2, shares: 3, unknown: 1, skipped: 1 });
    expect(summary.notes?.join('\n')).toMatch(/dividends LKOH: no "dividends" block \(unknown\)/);

    expect(await dividends('SBER')).toEqual([
      { d: '2023-05-11', value: 25, currency: 'RUB', source: 'moex' },
      { d: future, value: 33.3, currency: 'RUB', source: 'moex' },
    ]);
    expect(await dividends('LKOH')).toEqual(lkohBefore);
    expect(await synced('LKOH')).toBe(lkohSynced);
    expect(await synced('GAZP')).not.toBeNull();

    const sber = await shareRow('SBER');
    expect(sber.dividend_yield).toBeCloseTo((33.3 / sber.current_rate!) * 100, 10);
    expect((await shareRow('GAZP')).dividend_yield).toBe(0);
  });

  it('reads the fixture list (SUR, duplicates, null and 0 values) and stops asking when ISS keeps failing', async () => {
    fake.reset();
    await run('update:shares-dividends', ['--only', 'SBER']);
    const rows = await dividends('SBER');
    expect(rows).toHaveLength(9);
    expect(rows.every((r) => r.currency === 'RUB' && r.value > 0 && r.source === 'moex')).toBe(true);

    fake.fail(/\/dividends\.json/, ...Array.from({ length: 20 }, () => ({ status: 429 })));
    const asked = fake.requests.length;
    // Every share it tried failed: the run fails (non-zero exit by hand), saying why and what it did not ask.
    const outcome = await screener.runJob('update:shares-dividends', []);
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(String(outcome.error)).toMatch(/stopped after 5 failures in a row \(moex-iss: throttled \(HTTP 429\)\); \d+ share\(s\) not asked/);
    // 5 shares × 3 attempts (retries 2), then it stopped asking.
    expect(fake.requests.length - asked).toBe(15);
    expect(await dividends('SBER')).toEqual(rows);
    fake.reset();
  });
});

describe('custom assets', () => {
  const call = <T>(subject: string, data: unknown, userId?: string) => rpc.request<T>(subject, data, userId ? { userId } : {});
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as ServiceError,
    );
  type Reply = { data: { id: number; ticker: string; current_rate: string; price_change_percentage_24h: number | null; currency: string; description: string | null } };

  it('creates, lists and reprices for the owner only; a price change publishes RatesUpdated', async () => {
    const before = (await published()).length;
    const created = await call<Reply>(CustomAssetSubjects.create, { name: 'Flat in Kazan', currency: 'rub', price: '8500000', description: 'two rooms' }, ALICE);
    expect(created.data).toMatchObject({ ticker: 'FLAT-IN-KAZAN', current_rate: '8500000', currency: 'RUB', description: 'two rooms', price_change_percentage_24h: null });
    const id = created.data.id;
    expect((await call<{ data: unknown[] }>(CustomAssetSubjects.list, {}, BOB)).data).toEqual([]);
    expect((await call<{ data: { id: number }[] }>(CustomAssetSubjects.list, {}, ALICE)).data.map((a) => a.id)).toEqual([id]);

    expect((await failure(call(CustomAssetSubjects.update, { id, price: 1 }, BOB))).code).toBe(ErrorCode.NotFound);
    expect((await failure(call(CustomAssetSubjects.update, { id: 'abc', price: 1 }, ALICE))).code).toBe(ErrorCode.NotFound);
    expect((await failure(call(CustomAssetSubjects.list, {}))).code).toBe(ErrorCode.Unauthenticated);
    const invalid = await failure(call(CustomAssetSubjects.create, { name: '', currency: 'XXX', price: -1 }, ALICE));
    expect(invalid.code).toBe(ErrorCode.Validation);
    expect(Object.keys(invalid.errors ?? {}).sort()).toEqual(['currency', 'name', 'price']);

    // Yesterday's close, as if the asset had existed then: the day change is against it.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await screener.db.query('insert into asset_daily_closes (asset_id, trade_date, close) values ($1, $2, 8000000)', [id, yesterday]);
    const repriced = await call<Reply>(CustomAssetSubjects.update, { id, price: 8_800_000 }, ALICE);
    expect(repriced.data).toMatchObject({ current_rate: '8800000', price_change_percentage_24h: 10 });
    // A rename alone changes no rate: no RatesUpdated, but an AssetUpdated with the new description.
    await call<Reply>(CustomAssetSubjects.update, { id, name: 'Flat' }, ALICE);
    await expect
      .poll(async () => (await published<{ data: unknown }>('AssetUpdated')).map((e) => e.data), { timeout: 5_000, interval: 50 })
      .toEqual([{ version: 1, assetType: 'custom_asset', assetId: id, ticker: 'FLAT-IN-KAZAN', name: 'Flat', currency: 'RUB' }]);

    const events = await publishedSince(before);
    expect(events.map((e) => e.data.rates.map((r) => [r.assetType, r.assetId, r.rate, r.priceChangePercentage24h]))).toEqual([
      [['custom_asset', id, 8_500_000, null]],
      [['custom_asset', id, 8_800_000, 10]],
    ]);
  });
});
