/**
 * Provider data the screener's jobs must survive: values a column cannot hold, quote times in the future, coins
 * nobody asked for, negative stats, a batch the database refuses. Real Postgres + NATS, the fake providers of the
 * captures (local HTTP), altered per test.
 */
import { type ListSharesReply, type ShareRow, Subjects } from '@invest/contracts';
import { type JobOutcome, RpcClient, createLogger } from '@invest/platform';
import { testNatsUrl } from '@invest/platform/testing/index';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScreenerApp } from '../src/screener.app.js';
import { FakeProviders } from '../src/testing/fake-providers.js';
import { type JobScreener, startJobScreener } from './support/job-screener.js';

const logger = createLogger('scr-provider-robustness', 'silent');

let fake: FakeProviders;
let stack: JobScreener;
let screener: ScreenerApp;
let rpc: RpcClient;

beforeAll(async () => {
  fake = await FakeProviders.start();
  stack = await startJobScreener('robust', {
    fake,
    logger,
    providers: { MAIN_COINS: ['bitcoin', 'ethereum'], PROVIDER_TIMEOUT_MS: 400, PROVIDER_RETRIES: 1, PROVIDER_BACKOFF_MS: 10 },
  });
  screener = stack.screener;
  rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'scr-provider-robustness', defaultTimeoutMs: 10_000, busPrefix: stack.busPrefix });
  await rpc.connect();
});

afterAll(async () => {
  await rpc?.close();
  await stack?.close();
  await fake?.close();
});

beforeEach(() => fake.reset());

const run = (name: string, args: string[] = []): Promise<JobOutcome> => screener.runJob(name, args);

const asset = async (type: string, ticker: string) =>
  (
    await screener.db.query<{ id: string; rate: number | null; at: string | null }>(
      `select id::text, current_rate::float8 as rate, to_char(rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as at
       from assets where type = $1 and ticker = $2`,
      [type, ticker],
    )
  )[0];

/** Adds a new security on a board of a market document, cloned from an existing one (both blocks). */
function addSecurity(market: 'shares' | 'bonds', from: string, board: string, secid: string, patch: { securities?: Record<string, unknown>; marketdata?: Record<string, unknown> }) {
  const doc = fake.doc(market);
  for (const block of ['securities', 'marketdata'] as const) {
    const b = doc[block]!;
    const s = b.columns.indexOf('SECID');
    const br = b.columns.indexOf('BOARDID');
    const row = b.data.find((r) => r[s] === from && r[br] === board);
    if (!row) throw new Error(`no ${from}/${board} in ${market}.${block}`);
    const copy = [...row];
    copy[s] = secid;
    for (const [k, v] of Object.entries(patch[block] ?? {})) {
      let c = b.columns.indexOf(k);
      if (c < 0) {
        b.columns.push(k);
        for (const r of b.data) r.push(null);
        copy.push(null);
        c = b.columns.length - 1;
      }
      copy[c] = v;
    }
    b.data.push(copy);
  }
}

const failure = (outcome: JobOutcome) => (outcome.status === 'failed' ? String(outcome.error) : '');
const notes = (outcome: JobOutcome) => (outcome.status === 'done' ? (outcome.summary.notes ?? []).join('\n') : failure(outcome));

/** A string of random capital letters: incompressible enough to exceed a btree index row (~2.7 kB) when long. */
const randomLetters = (n: number) => Array.from({ length: n }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');

describe('a value of a new listing that a column cannot hold is unknown; the refresh goes on', () => {
  // A first full run so every market exists; then a new listing with an odd field arrives.
  it('the first full run is done', async () => {
    const outcome = await run('get:assetRates');
    expect(outcome.status, failure(outcome)).toBe('done');
  });

  it.each([
    ['fractional LOTSIZE', { LOTSIZE: 0.5 }],
    ['LOTSIZE beyond int4', { LOTSIZE: 5_000_000_000 }],
    ['ISSUESIZE beyond int8', { ISSUESIZE: 1e20 }],
    ['LISTLEVEL beyond smallint', { LISTLEVEL: 40000 }],
    ['an ISIN of 6000 random characters (too big for a btree index row)', { ISIN_LONG: true }],
  ])('a new TQBR share with %s is created with the field unknown; later boards are refreshed', async (_name, securities) => {
    const secid = `NEW${Math.random().toString(36).slice(2, 6).toUpperCase()}`;
    const { ISIN_LONG, ...rest } = securities as Record<string, unknown>;
    const isin = ISIN_LONG ? randomLetters(6000) : 'RU000A0JXXX1';
    addSecurity('shares', 'SBER', 'TQBR', secid, { securities: { ...rest, ISIN: isin } });
    // An ETF moves on (read after the shares boards).
    fake.setCell('shares', 'marketdata', 'AKGD', 'TQTF', 'LAST', 77.77 + Math.random());
    const want = fake.cell('shares', 'marketdata', 'AKGD', 'TQTF', 'LAST');
    const outcome = await run('get:assetRates');
    expect(outcome.status, failure(outcome)).toBe('done');
    // The ETF board is read after the shares boards: it is refreshed.
    expect((await asset('etf', 'AKGD'))!.rate).toBe(want);
    const [row] = await screener.db.query<{ isin: string | null; lot_size: number | null; list_level: number | null; issue_size: string | null }>(
      `select a.isin, s.lot_size, s.list_level, s.issue_size::text from assets a join shares s on s.asset_id = a.id where a.type = 'share' and a.ticker = $1`,
      [secid],
    );
    expect(row, 'the new share is created').toBeDefined();
    const column = { LOTSIZE: 'lot_size', ISSUESIZE: 'issue_size', LISTLEVEL: 'list_level', ISIN_LONG: 'isin' }[Object.keys(securities)[0]!] as keyof typeof row;
    expect(row![column]).toBeNull();
  });

  it('a new bond with an impossible MATDATE (2024-02-30) has no maturity date; later markets are refreshed', async () => {
    addSecurity('bonds', 'SU26207RMFS9', 'TQOB', 'SU99999RMFS9', { securities: { MATDATE: '2024-02-30' } });
    // Futures, currencies and tokens are read after the bonds boards.
    fake.setCell('currency', 'marketdata', 'USD000UTSTOM', 'CETS', 'LAST', 95.4321);
    fake.setCoin('bitcoin', { current_price: 23456.5 });
    const outcome = await run('get:assetRates');
    expect(outcome.status, failure(outcome)).toBe('done');
    expect((await asset('token', 'BTC'))!.rate).toBe(23456.5);
    expect((await asset('currency', 'USD000UTSTOM'))!.rate).toBe(95.4321);
    const [bond] = await screener.db.query<{ maturity: string | null }>(
      `select b.maturity_date::text as maturity from assets a join bonds b on b.asset_id = a.id where a.type = 'bond' and a.ticker = 'SU99999RMFS9'`,
    );
    expect(bond).toEqual({ maturity: null });
    // The other bonds of the same board keep getting their rate.
    const face = fake.cell('bonds', 'securities', 'SU26207RMFS9', 'TQOB', 'FACEVALUE') as number;
    fake.setCell('bonds', 'marketdata', 'SU26207RMFS9', 'TQOB', 'LAST', 90.5);
    const again = await run('get:assetRates');
    expect(again.status, failure(again)).toBe('done');
    expect((await asset('bond', 'SU26207RMFS9'))!.rate).toBeCloseTo((90.5 * face) / 100, 6);
  });
});

describe('a SECID that cannot be a ticker is skipped with its reason; the rest of its board is written', () => {
  it('a new TQBR share with a SECID of 9,000 characters (too long for the ticker index): skipped, SBER refreshed', async () => {
    await run('get:assetRates');
    addSecurity('shares', 'SBER', 'TQBR', randomLetters(9000), {});
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 612.34);
    const outcome = await run('get:assetRates');
    expect(outcome.status, failure(outcome)).toBe('done');
    expect(notes(outcome)).toMatch(/SECID is not a ticker \(more than 51 characters/);
    expect((await asset('share', 'SBER'))!.rate).toBe(612.34);
    const [tickers] = await screener.db.query<{ longest: number }>("select max(length(ticker))::int as longest from assets where type = 'share'");
    expect(tickers!.longest).toBeLessThanOrEqual(51);
  });
});

describe('a batch the database refuses is skipped with its reason; the other sources are written', () => {
  it('TQBR refused by the database (a rule the parser does not know): TQBR skipped whole, later boards and CoinGecko refreshed', async () => {
    await run('get:assetRates');
    const sberBefore = (await asset('share', 'SBER'))!.rate;
    // A refusal no parser check foresees, as a constraint added to the database would be.
    await screener.db.query(`create or replace function refuse_test_ticker() returns trigger language plpgsql as $$
      begin raise exception 'ticker % refused for the test', new.ticker; end $$`);
    await screener.db.query("create trigger refuse_test_ticker before insert on assets for each row when (new.ticker = 'REFUSED') execute function refuse_test_ticker()");
    try {
      addSecurity('shares', 'SBER', 'TQBR', 'REFUSED', {});
      fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 623.45);
      fake.setCell('shares', 'marketdata', 'AKGD', 'TQTF', 'LAST', 55.55);
      fake.setCoin('bitcoin', { current_price: 34567.5 });
      const outcome = await run('get:assetRates');
      expect(outcome.status, failure(outcome)).toBe('done');
      expect(notes(outcome)).toMatch(/shares TQBR: skipped, .*refused for the test.*; last values kept/);
      // TQBR's batch is rolled back whole (one response, one transaction): SBER keeps its rate.
      expect((await asset('share', 'SBER'))!.rate).toBe(sberBefore);
      expect((await asset('etf', 'AKGD'))!.rate).toBe(55.55);
      expect((await asset('token', 'BTC'))!.rate).toBe(34567.5);
    } finally {
      await screener.db.query('drop trigger refuse_test_ticker on assets');
    }
  });
});

describe('a quote time from the future must not freeze an asset', () => {
  it('SYSTIME far in the future once: that quote is skipped, and the next correct one lands', async () => {
    await run('get:assetRates');
    const before = (await asset('share', 'SBER'))!.rate;
    // One answer with a bogus clock (a provider glitch) for SBER only.
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'SYSTIME', '2099-01-01 10:00:00');
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 999.99);
    const glitch = await run('get:assetRates');
    expect(notes(glitch)).toMatch(/shares TQBR: 1 skipped \(quote time ahead of the clock\): SBER/);
    expect((await asset('share', 'SBER'))!.rate).toBe(before);
    fake.reset();
    // Back to normal: a real, current quote (now, Moscow time).
    const now = new Date();
    const msk = new Date(now.getTime() + 3 * 3600_000).toISOString().replace('T', ' ').slice(0, 19);
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'SYSTIME', msk);
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'UPDATETIME', msk.slice(11));
    fake.setCell('shares', 'marketdata', 'SBER', 'TQBR', 'LAST', 301.11);
    const outcome = await run('get:assetRates');
    expect(outcome.status).toBe('done');
    const sber = await asset('share', 'SBER');
    expect(sber!.rate).toBe(301.11);
    expect(sber!.at! <= new Date(Date.now() + 60_000).toISOString()).toBe(true);
  });

  it('CoinGecko last_updated far in the future once: that quote is skipped, and the next correct one lands', async () => {
    await run('command:GetMainCoinsRates');
    fake.setCoin('ethereum', { current_price: 99999, last_updated: '2099-01-01T00:00:00.000Z' });
    await run('command:GetMainCoinsRates');
    fake.reset();
    fake.setCoin('ethereum', { current_price: 1234.5, last_updated: new Date().toISOString() });
    await run('command:GetMainCoinsRates');
    expect((await asset('token', 'ETH'))!.rate).toBe(1234.5);
  });
});

describe('CoinGecko answering more coins than asked', () => {
  it('a coin nobody asked for is not created as a token', async () => {
    fake.setCoin('bitcoin', { current_price: 45678.5 });
    fake.transform(/\/coins\/markets/, (doc) => [
      ...(doc as unknown[]),
      { id: 'unasked-coin', symbol: 'unask', name: 'Unasked', current_price: 0.5, market_cap: 1, total_volume: 1, price_change_percentage_24h: 1, last_updated: new Date().toISOString() },
    ]);
    const outcome = await run('command:GetMainCoinsRates');
    expect(outcome.status).toBe('done');
    expect(notes(outcome)).toMatch(/tokens coingecko: 1 skipped \(not asked for\): unasked-coin/);
    // The coins asked for are still written.
    expect((await asset('token', 'BTC'))!.rate).toBe(45678.5);
    const rows = await screener.db.query<{ n: number }>(`select count(*)::int as n from assets where type = 'token' and source_id = 'unasked-coin'`);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('screener rows after odd provider values', () => {
  const row = async (ticker: string): Promise<ShareRow | undefined> =>
    (await rpc.request<ListSharesReply>(Subjects.screener.sharesList, { search: ticker, per_page: 100 })).data.find((r) => r.asset === ticker);

  it('a negative ISSUECAPITALIZATION / VALTODAY is unknown: the stored stats are kept', async () => {
    expect((await run('update:shares-market-stats')).status).toBe('done');
    const before = await row('GAZP');
    expect(before!.market_cap).toBeGreaterThan(0);
    fake.setCell('shares', 'marketdata', 'GAZP', 'TQBR', 'ISSUECAPITALIZATION', -5);
    fake.setCell('shares', 'marketdata', 'GAZP', 'TQBR', 'VALTODAY', -7);
    const outcome = await run('update:shares-market-stats');
    expect(outcome.status).toBe('done');
    const gazp = await row('GAZP');
    expect(gazp!.market_cap).toBe(before!.market_cap);
    expect(gazp!.trading_volume).toBe(before!.trading_volume);
  });
});
