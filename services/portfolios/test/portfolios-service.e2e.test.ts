/**
 * The portfolios service over real NATS and Postgres with the real screener (demo data): asset look-up
 * (local first, the screener once), the RatesUpdated consumer (newer asOf only), statistics over NATS
 * for `meta.userId`, membership, and the events the relay publishes. The HTTP side is covered by the
 * gateway's portfolios end-to-end tests.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, eventSubject, type GetStatisticsReply, getStatisticsReplySchema, type DealReply, type PortfolioReply, Subjects } from '@invest/contracts';
import { type Bus, busSubject, connectBus, createLogger, RpcClient, ServiceError, streamNameOf } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { createScreenerApp, type ScreenerApp } from '@invest/screener/screener.app';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPortfoliosApp, type PortfoliosApp } from '../src/portfolios.app.js';
import { publishRates, readPortfolioEvents } from '../src/testing/portfolios-test-kit.js';

const logger = createLogger('portfolios-test', 'silent');
const busPrefix = `${uniqueName('pfsvc')}.`;
const ALICE = `alice-${randomUUID()}`;
const BOB = `bob-${randomUUID()}`;

let screener: ScreenerApp | undefined;
let service: PortfoliosApp;
let rpc: RpcClient;
let bus: Bus;
const drops: (() => Promise<void>)[] = [];
const ids: Record<string, number> = {};

const call = <T>(subject: string, data: unknown, userId?: string) => rpc.request<T>(subject, data, userId ? { userId } : {});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as ServiceError,
  );
const localAsset = async (ticker: string) =>
  (await service.db.query<{ current_rate: number | null; name: string | null; rate_as_of: string | null }>(
    'select current_rate, name, rate_as_of::text from assets where ticker = $1',
    [ticker],
  ))[0];

beforeAll(async () => {
  const screenerDb = await createTestDatabase('pfsvc_scr');
  const portfoliosDb = await createTestDatabase('pfsvc');
  drops.push(screenerDb.drop, portfoliosDb.drop);
  screener = await createScreenerApp({ databaseUrl: screenerDb.url, natsUrl: testNatsUrl(), busPrefix, logger, loadDemoData: true });
  for (const r of await screener.db.query<{ id: string; ticker: string }>(
    "select id::text, ticker from assets where type = 'share' and ticker in ('SBER', 'GAZP', 'LKOH', 'MOEX')",
  )) {
    ids[r.ticker] = Number(r.id);
  }
  expect(Object.keys(ids).sort()).toEqual(['GAZP', 'LKOH', 'MOEX', 'SBER']);
  // A share the demo load never announced in a RatesUpdated: unknown to portfolios until looked up.
  const [bare] = await screener.db.query<{ id: string }>(
    `with a as (insert into assets (type, ticker, name, currency) values ('share', 'ZZQUIET', 'Тихая акция', 'RUB') returning id)
     insert into shares (asset_id, category_id) select a.id, (select id from share_categories where slug = 'ordinary') from a returning asset_id::text as id`,
  );
  ids.ZZQUIET = Number(bare!.id);
  service = await createPortfoliosApp({ databaseUrl: portfoliosDb.url, natsUrl: testNatsUrl(), busPrefix, logger, rpcTimeoutMs: 1500, relayPollMs: 100 });
  rpc = RpcClient.create({ natsUrl: testNatsUrl(), name: 'portfolios-test', defaultTimeoutMs: 5000, busPrefix });
  await rpc.connect();
  bus = await connectBus({ natsUrl: testNatsUrl(), name: 'portfolios-test', prefix: busPrefix });
});

afterAll(async () => {
  await rpc?.close();
  await service?.close();
  await screener?.close();
  if (bus) {
    for (const ctx of ['portfolios', 'market'] as const) {
      await bus.jsm.streams.delete(streamNameOf(bus, ctx)).catch(() => undefined);
    }
    await bus.close();
  }
  for (const drop of drops) await drop();
});

describe('portfolios service (NATS)', () => {
  let portfolioId: number;

  it('validates an asset with the screener once and keeps its description locally', async () => {
    const created = await call<PortfolioReply>(Subjects.portfolios.portfoliosCreate, { name: 'Main', currency_code: 'rub' }, ALICE);
    portfolioId = created.data.id;
    expect(created.data).toMatchObject({ name: 'Main', currency_code: 'RUB', positions_count: 0, deals_count: 0 });
    // The screener's demo load announces its rates, so SBER may already be known here, but only by its
    // rate: its description (name) comes from the screener the first time it is used.
    expect((await localAsset('SBER'))?.name ?? null).toBeNull();

    const deal = await call<DealReply>(
      Subjects.portfolios.dealsCreate,
      { portfolio_id: portfolioId, type: 'buy', assetable: { type: 'share', id: ids.SBER }, quantity: 10, price: 250, date: '2024-01-10' },
      ALICE,
    );
    // Money and quantities travel as exact decimal text on NATS.
    expect(deal.data).toMatchObject({ type: 'buy', quantity: '10', price: '250', commission: '0', amount: '2500', date: '2024-01-10' });
    expect(deal.data.asset?.ticker).toBe('SBER');
    const stored = await localAsset('SBER');
    expect(stored?.name).toMatch(/Сбербанк/i);

    const unknown = await failure(
      call(Subjects.portfolios.dealsCreate, { portfolio_id: portfolioId, type: 'buy', assetable: { type: 'share', id: 987654321 }, quantity: 1, price: 1, date: '2024-01-10' }, ALICE),
    );
    expect(unknown.code).toBe(ErrorCode.Validation);
    expect(Object.keys(unknown.errors ?? {})).toEqual(['assetable.id']);
  });

  it('keeps only newer rates from RatesUpdated', async () => {
    const now = Date.now();
    await publishRates(bus, [{ assetType: 'share', assetId: ids.SBER!, ticker: 'SBER', currency: 'RUB', rate: 301.5, priceChangePercentage24h: 1.2, asOf: new Date(now + 60_000).toISOString() }]);
    await expect.poll(async () => (await localAsset('SBER'))?.current_rate, { timeout: 5000 }).toBe(301.5);
    // An older rate arrives late; then a barrier event on another asset shows the consumer got past it.
    await publishRates(bus, [{ assetType: 'share', assetId: ids.SBER!, ticker: 'SBER', currency: 'RUB', rate: 1, priceChangePercentage24h: 0, asOf: new Date(now - 3_600_000).toISOString() }]);
    await publishRates(bus, [{ assetType: 'share', assetId: ids.LKOH!, ticker: 'LKOH', currency: 'RUB', rate: 7000, priceChangePercentage24h: -0.5, asOf: new Date(now).toISOString() }]);
    await expect.poll(async () => (await localAsset('LKOH'))?.current_rate, { timeout: 5000 }).toBe(7000);
    expect((await localAsset('SBER'))?.current_rate).toBe(301.5);
    // An asset seen only in rates is known (no name yet) and is described by the screener when first used.
    expect((await localAsset('LKOH'))?.name).toBeNull();
  });

  it('leaves a RatesUpdated version it does not read for a later release: not recorded as handled, counted', async () => {
    const id = randomUUID();
    const v2 = { id, type: 'RatesUpdated', streamName: 'rates-share', streamPosition: 1, recordedAt: new Date().toISOString(), data: { version: 2, changes: [] }, metadata: {} };
    await bus.js.publish(busSubject(bus.prefix, eventSubject('market', 'RatesUpdated')), JSON.stringify(v2), { msgID: id });
    // A barrier behind it shows the consumer went past it.
    await publishRates(bus, [{ assetType: 'share', assetId: ids.GAZP!, ticker: 'GAZP', currency: 'RUB', rate: 150, priceChangePercentage24h: 0, asOf: new Date().toISOString() }]);
    await expect.poll(async () => (await localAsset('GAZP'))?.current_rate, { timeout: 5000 }).toBe(150);
    await expect.poll(() => service.ratesConsumer.stats().unknown, { timeout: 5000 }).toBe(1);
    expect(await service.db.query('select 1 from es_inbox where message_id = $1', [id])).toEqual([]);
  });

  it('answers statistics for meta.userId only, first computed then from the hydrated cache', async () => {
    const first = await call<GetStatisticsReply>(Subjects.portfolios.statisticsGet, { portfolio_id: portfolioId }, ALICE);
    expect(() => getStatisticsReplySchema.parse(first)).not.toThrow();
    expect(first.meta.source).toBe('computed');
    // 10 SBER at 250 now priced at 301.5 (the newer RatesUpdated rate).
    expect(first.data.tickers[0]).toMatchObject({ ticker: 'SBER', totalQuantity: '10', spent: '2500', currentPrice: 301.5, currentNetworth: '3015', currentIncome: '515' });
    const second = await call<GetStatisticsReply>(Subjects.portfolios.statisticsGet, { portfolio_id: String(portfolioId) }, ALICE);
    expect(second.meta.source).toBe('hydrated');
    expect(second.data).toEqual(first.data);

    expect((await failure(call(Subjects.portfolios.statisticsGet, { portfolio_id: portfolioId }, BOB))).code).toBe(ErrorCode.NotFound);
    expect((await failure(call(Subjects.portfolios.statisticsGet, { portfolio_id: portfolioId }))).code).toBe(ErrorCode.Unauthenticated);
    expect((await failure(call(Subjects.portfolios.statisticsGet, { portfolio_id: 'abc' }, ALICE))).code).toBe(ErrorCode.NotFound);
  });

  it('a newer price makes the hydrated answer stale: the next read comes from the state cache', async () => {
    await publishRates(bus, [{ assetType: 'share', assetId: ids.SBER!, ticker: 'SBER', currency: 'RUB', rate: 320, priceChangePercentage24h: 2, asOf: new Date(Date.now() + 120_000).toISOString() }]);
    await expect.poll(async () => (await localAsset('SBER'))?.current_rate, { timeout: 5000 }).toBe(320);
    const after = await call<GetStatisticsReply>(Subjects.portfolios.statisticsGet, { portfolio_id: portfolioId }, ALICE);
    expect(after.meta.source).toBe('state');
    expect(after.data.tickers[0]?.currentNetworth).toBe('3200');
  });

  it('answers membership of a portfolio (open positions) and a watchlist (items)', async () => {
    const m = await call<{ data: { assets: unknown[]; name: string } }>(Subjects.portfolios.membershipGet, { target_type: 'portfolio', target_id: portfolioId }, ALICE);
    expect(m.data).toMatchObject({ name: 'Main', assets: [{ type: 'share', id: ids.SBER }] });
    const wl = await call<{ data: { id: number } }>(Subjects.portfolios.watchlistsCreate, { name: 'Ideas' }, ALICE);
    await call(Subjects.portfolios.watchlistItemsCreate, { watchlist_id: wl.data.id, assetable: { type: 'share', id: ids.LKOH } }, ALICE);
    // LKOH was known only from rates; using it had the screener describe it.
    expect((await localAsset('LKOH'))?.name).toMatch(/ЛУКОЙЛ/i);
    const w = await call<{ data: { assets: unknown[] } }>(Subjects.portfolios.membershipGet, { target_type: 'watchlist', target_id: wl.data.id }, ALICE);
    expect(w.data.assets).toEqual([{ type: 'share', id: ids.LKOH }]);
    expect((await failure(call(Subjects.portfolios.membershipGet, { target_type: 'watchlist', target_id: wl.data.id }, BOB))).code).toBe(ErrorCode.NotFound);
  });

  it('publishes PortfolioCreated and PositionOpened/Closed with the portfolio id in the subject', async () => {
    await call(Subjects.portfolios.dealsCreate, { portfolio_id: portfolioId, type: 'sell', assetable: { type: 'share', id: ids.SBER }, quantity: 10, price: 300, date: '2024-02-01' }, ALICE);
    const wanted = ['PortfolioCreated', 'PositionOpened', 'PositionClosed'].map((t) => eventSubject('portfolios', t, portfolioId));
    await expect.poll(async () => (await readPortfolioEvents(bus)).map((e) => e.subject).filter((s) => wanted.includes(s)), { timeout: 5000 }).toEqual(wanted);
    const events = await readPortfolioEvents(bus);
    const opened = events.find((e) => e.subject === wanted[1])!.event;
    expect(opened).toMatchObject({ type: 'PositionOpened', streamName: `portfolio-${portfolioId}`, data: { version: 1, portfolioId, userId: ALICE, asset: { type: 'share', id: ids.SBER } } });
  });

  it('validates known assets locally while the screener is down; unknown ones answer unavailable', async () => {
    await screener!.close();
    screener = undefined;
    const again = await call<DealReply>(
      Subjects.portfolios.dealsCreate,
      { portfolio_id: portfolioId, type: 'buy', assetable: { type: 'share', id: ids.SBER }, quantity: 1, price: 300, date: '2024-03-01' },
      ALICE,
    );
    expect(again.data.asset?.ticker).toBe('SBER');
    const down = await failure(
      call(Subjects.portfolios.dealsCreate, { portfolio_id: portfolioId, type: 'buy', assetable: { type: 'share', id: ids.ZZQUIET }, quantity: 1, price: 1, date: '2024-03-01' }, ALICE),
    );
    expect(await localAsset('ZZQUIET')).toBeUndefined();
    expect(down.code).toBe(ErrorCode.Unavailable);
  });
});
