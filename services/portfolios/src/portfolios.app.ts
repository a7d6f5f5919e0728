import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { type Bus, createHealthController, createLogger, type Db, type DurableConsumer, type EventRelay, type Logger, ServiceResources } from '@invest/platform';
import { createAssetUsesHandler } from './asset-uses/asset-uses.handler.js';
import { AssetUsesService } from './asset-uses/asset-uses.service.js';
import { type Clock, systemClock } from './common/clock.js';
import { DEFAULT_LIMITS, type PortfoliosLimits } from './common/limits.js';
import { DealImportService } from './deal-imports/deal-import.service.js';
import { createDealImportsHandler } from './deal-imports/deal-imports.handler.js';
import { DealService } from './deals/deal.service.js';
import { createDividendsHandler } from './dividends/dividends.handler.js';
import { DividendsService } from './dividends/dividends.service.js';
import { createHoldingsHandler } from './holdings/holdings.handler.js';
import { HistoryCache } from './history/history.cache.js';
import { createHistoryHandler } from './history/history.handler.js';
import { HistoryService } from './history/history.service.js';
import { HoldingsService } from './holdings/holdings.service.js';
import { createDealsHandler } from './deals/deals.handler.js';
import { portfolioEventSubject } from './events/portfolio-events.recorder.js';
import { createMembershipHandler } from './membership/membership.handler.js';
import { MembershipService } from './membership/membership.service.js';
import { migrations } from './migrations/index.js';
import { PortfolioService } from './portfolios/portfolio.service.js';
import { createPortfoliosHandler } from './portfolios/portfolios.handler.js';
import { AssetLookup } from './prices/asset-lookup.service.js';
import { createAssetUpdatedConsumer, createRatesUpdatedConsumer } from './prices/rates-updated.consumer.js';
import { createStatisticsHandler } from './statistics/statistics.handler.js';
import { DEFAULT_CACHE_TTL, StatisticsService, type StatisticsCacheTtl } from './statistics/statistics.service.js';
import { WatchlistService } from './watchlists/watchlist.service.js';
import { createWatchlistsHandler } from './watchlists/watchlists.handler.js';

export interface PortfoliosAppOptions {
  databaseUrl: string;
  natsUrl: string;
  /** `JETSTREAM_REPLICAS` (default 1): replicas of the streams this service creates or updates. */
  jetstreamReplicas?: number;
  /** `BUS_PREFIX` of this environment ('' in production; unique per test file). */
  busPrefix: string;
  logger?: Logger;
  /** Timeout of calls to other services (the screener's asset look-up). */
  rpcTimeoutMs?: number;
  /** Now, for deal-date checks and the XIRR valuation date. */
  clock?: Clock;
  cacheTtl?: Partial<StatisticsCacheTtl>;
  /** Relay fallback poll interval (commits also wake it). */
  relayPollMs?: number;
  /** How long a computed value history is kept (default 10 minutes; a deal change or a new day ends it sooner). */
  historyCacheTtlMs?: number;
  /** Per-user quotas (DEFAULT_LIMITS for what is not given). */
  limits?: Partial<PortfoliosLimits>;
}

export interface PortfoliosApp {
  app: INestMicroservice;
  db: Db;
  bus: Bus;
  relay: EventRelay;
  ratesConsumer: DurableConsumer;
  /** Keeps the catalog's ticker, name and currency from AssetUpdated. */
  assetConsumer: DurableConsumer;
  /** Stops the NATS handlers, the consumer and the relay, then closes NATS and the database. */
  close(): Promise<void>;
}

/**
 * Boots the portfolios service: database (migrations), NATS handlers, the event relay to
 * PORTFOLIOS_EVENTS and the RatesUpdated and AssetUpdated consumers that keep the local asset catalog (prices, descriptions) current.
 */
export async function createPortfoliosApp(opts: PortfoliosAppOptions): Promise<PortfoliosApp> {
  const logger = opts.logger ?? createLogger('portfolios');
  const clock = opts.clock ?? systemClock;
  // Resources in start order; stopped in reverse, once, by whichever comes first: close(), a signal
  // (Nest's shutdown hooks call res.stop) or a failed start.
  const res = new ServiceResources(logger);
  return res.boot(async () => {
    const db = await res.openDatabase({ url: opts.databaseUrl, migrations, logger });
    // The consumer reads the market stream; ensuring it here (same definition as the screener's) lets
    // the services start in any order.
    const bus = await res.connectBus({ natsUrl: opts.natsUrl, replicas: opts.jetstreamReplicas, name: 'portfolios', prefix: opts.busPrefix }, ['portfolios', 'market']);
    const rpc = await res.connectRpc({ natsUrl: opts.natsUrl, name: 'portfolios-client', defaultTimeoutMs: opts.rpcTimeoutMs ?? 3000, busPrefix: opts.busPrefix });

    const assets = new AssetLookup(db, rpc, logger);
    const limits: PortfoliosLimits = { ...DEFAULT_LIMITS, ...opts.limits };
    const cacheTtl = { ...DEFAULT_CACHE_TTL, ...opts.cacheTtl };
    const holdings = new HoldingsService(db, logger, cacheTtl.stateSeconds);
    // The handlers close over the services; Nest's shutdown (a signal) stops the resources too.
    const app = await res.startApp(
      [
        createHealthController('portfolios', res.problems),
        createPortfoliosHandler(new PortfolioService(db, limits, holdings)),
        createDealsHandler(new DealService(db, assets, clock, limits)),
        createDealImportsHandler(new DealImportService(db, assets, rpc, clock, logger, limits)),
        createWatchlistsHandler(new WatchlistService(db, assets, limits)),
        createStatisticsHandler(new StatisticsService(db, logger, clock, cacheTtl)),
        createHoldingsHandler(holdings),
        createHistoryHandler(new HistoryService(db, rpc, new HistoryCache(opts.historyCacheTtlMs ?? 600_000), logger, clock)),
        createDividendsHandler(new DividendsService(db, rpc, logger)),
        createMembershipHandler(new MembershipService(db)),
        createAssetUsesHandler(new AssetUsesService(db)),
      ],
      { name: 'portfolios', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix },
    );

    // Background work starts after the handlers; it is stopped before the connections it uses.
    const relay = await res.startRelay({ db, bus, name: 'portfolios-relay', logger, subjectFor: portfolioEventSubject, pollMs: opts.relayPollMs });
    const ratesConsumer = await res.start(createRatesUpdatedConsumer({ db, bus, logger }));
    const assetConsumer = await res.start(createAssetUpdatedConsumer({ db, bus, logger }));

    logger.debug({ busPrefix: opts.busPrefix || undefined }, 'portfolios service started');
    return { app, db, bus, relay, ratesConsumer, assetConsumer, close: res.close };
  });
}
