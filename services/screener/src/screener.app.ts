import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import {
  type Bus,
  busSubject,
  CoalescingCache,
  createHealthController,
  type Db,
  type DurableConsumer,
  type EventRelay,
  type JobOutcome,
  type JobScheduler,
  type Logger,
  createLogger,
  runJob,
  ServiceResources,
  serviceModule,
  startRpcService,
} from '@invest/platform';
import { EventStreams, type ListSharesReply, mayChangeShareScreener } from '@invest/contracts';
import { createGetAssetsHandler } from './assets/get-assets.handler.js';
import { createAssetPageHandler } from './assets/asset-page.handler.js';
import { createSearchAssetsHandler } from './assets/search-assets.handler.js';
import { createListCategoriesHandler } from './categories/list-categories.handler.js';
import { ClosesBackfill } from './closes/closes-backfill.js';
import { createDividendsHandler } from './dividends/dividends.handler.js';
import { createClosesHandler } from './closes/closes.handler.js';
import { DEFAULT_MAIN_COINS } from './config.js';
import { createListCountriesHandler } from './countries/list-countries.handler.js';
import { PortfoliosAssetUses } from './custom-assets/asset-uses.client.js';
import { createCustomAssetsHandler } from './custom-assets/custom-assets.handler.js';
import { CustomAssetsService } from './custom-assets/custom-assets.service.js';
import { loadDemoData } from './demo-data/demo-data.loader.js';
import { type ProviderSettings, createJobDeps } from './jobs/job-deps.js';
import { type ScreenerJobs, createScreenerJobs, scheduleScreenerJobs } from './jobs/screener-jobs.js';
import { DEFAULT_COINGECKO_URL } from './market-data/coingecko.client.js';
import { marketToday } from './market-data/market-time.js';
import { DEFAULT_MOEX_ISS_URL } from './market-data/moex-iss.client.js';
import { migrations } from './migrations/index.js';
import { screenerEventSubject } from './rates/rates-updated.recorder.js';
import { createListSharesHandler } from './shares/list-shares.handler.js';
import { createUsedAssetsConsumer } from './used-assets/used-assets.consumer.js';

/** Provider settings when none are given (the configuration's defaults: the real MOEX ISS and CoinGecko). */
export const DEFAULT_PROVIDERS: ProviderSettings = {
  MOEX_ISS_URL: DEFAULT_MOEX_ISS_URL,
  MOEX_ISS_MIN_INTERVAL_MS: 200,
  COINGECKO_URL: DEFAULT_COINGECKO_URL,
  MAIN_COINS: DEFAULT_MAIN_COINS,
  PROVIDER_TIMEOUT_MS: 10_000,
  PROVIDER_RETRIES: 3,
  PROVIDER_BACKOFF_MS: 500,
};

export interface ScreenerAppOptions {
  databaseUrl: string;
  natsUrl: string;
  /** `JETSTREAM_REPLICAS` (default 1): replicas of the streams this service creates or updates. */
  jetstreamReplicas?: number;
  /** Prefix of every NATS subject (`BUS_PREFIX`); tests use a unique one. */
  busPrefix?: string;
  logger?: Logger;
  /** Load the demo shares and dividends on first start (default true). */
  loadDemoData?: boolean;
  /** Time zone of the market day (dividend window, daily closes, the 01:45 job). Default Europe/Moscow. */
  marketTz?: string;
  /** Provider URLs, keys and call settings (default: DEFAULT_PROVIDERS). */
  providers?: Partial<ProviderSettings>;
  /** Run the jobs on their schedules (`JOBS_ENABLED`). Default false here; main.ts passes the configuration (default true). */
  jobs?: boolean;
  /** Publish recorded events to JetStream (default true). */
  relay?: boolean;
  relayPollMs?: number;
  /** Consume PORTFOLIOS_EVENTS into the used-assets set (default true). */
  usedAssetsConsumer?: boolean;
  /**
   * How long a screener page may be served from memory (`SCREENER_CACHE_TTL_MS`). Identical concurrent
   * requests always share one query; 0 (the default here) caches nothing beyond that.
   */
  listCacheTtlMs?: number;
  /** Custom assets one user may have (`CUSTOM_ASSETS_MAX_PER_USER`, default 200). */
  customAssetsMaxPerUser?: number;
  /** Timeout of requests to other services (a custom asset's deletion asks portfolios for its uses); default 3 s. */
  rpcTimeoutMs?: number;
}

export interface ScreenerApp {
  app: INestMicroservice;
  db: Db;
  bus: Bus;
  relay?: EventRelay;
  usedAssets?: DurableConsumer;
  scheduler?: JobScheduler;
  jobs: ScreenerJobs;
  /** Runs one job now, as the scheduler would (advisory lock, one-line summary). */
  runJob(name: string, args?: string[]): Promise<JobOutcome>;
  /** Stops answering on NATS, then the jobs, relay and consumer, then closes the bus and the database. Safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Opens the screener database (creating it and running migrations), loads the demo data once if asked,
 * starts the NATS handlers, then the event relay (RatesUpdated to MARKET_EVENTS), the used-assets consumer
 * (PORTFOLIOS_EVENTS) and, if asked, the job scheduler. Used by `main.ts` and by tests.
 */
export async function createScreenerApp(opts: ScreenerAppOptions): Promise<ScreenerApp> {
  const logger = opts.logger ?? createLogger('screener');
  const marketTz = opts.marketTz ?? 'Europe/Moscow';
  const stopping = new AbortController();
  // Resources in start order; stopped in reverse, once, by whichever comes first: close(), a signal
  // (Nest's shutdown hooks call stopResources) or a failed start. Jobs in flight are aborted first.
  const res = new ServiceResources(logger);
  const stopResources = () => {
    stopping.abort(new Error('screener stopping'));
    return res.stop();
  };

  let app: INestMicroservice | undefined;
  try {
    const db = await res.openDatabase({ url: opts.databaseUrl, migrations, logger });
    if (opts.loadDemoData ?? true) await loadDemoData(db, { today: marketToday(marketTz), logger });

    // The consumer reads the portfolios' stream; ensuring it here (same definition) lets services start in any order.
    const bus = await res.connectBus({ natsUrl: opts.natsUrl, replicas: opts.jetstreamReplicas, name: 'screener', prefix: opts.busPrefix ?? '' }, ['market', 'portfolios']);

    const rpc = await res.connectRpc({ natsUrl: opts.natsUrl, name: 'screener-client', defaultTimeoutMs: opts.rpcTimeoutMs ?? 3000, busPrefix: opts.busPrefix ?? '' });
    const customAssets = new CustomAssetsService(db, () => marketToday(marketTz), new PortfoliosAssetUses(rpc), opts.customAssetsMaxPerUser);

    const deps = createJobDeps({ db, logger, marketTz, providers: { ...DEFAULT_PROVIDERS, ...opts.providers }, signal: stopping.signal });
    const jobs = createScreenerJobs(deps, { customAssets });

    const listCache = new CoalescingCache<ListSharesReply>({ ttlMs: opts.listCacheTtlMs ?? 0, maxEntries: 500 });
    // Any market event (from this process's jobs, `npm run cmd`, or another instance) means pages may have
    // changed: neither a kept page nor a query already in flight is reused, so the gateway, which clears its own
    // cache on the same events, never reloads a page from before the change.
    // A custom asset's events are not (any user writes those at will, and they are never on these pages).
    bus.nc.subscribe(busSubject(opts.busPrefix ?? '', `${EventStreams.market.root}.>`), {
      callback: (err, msg) => {
        if (err || mayChangeShareScreener(msg.headers)) listCache.clear();
      },
    });
    const handlers = [
      createListSharesHandler({ db, marketToday: () => marketToday(marketTz), cache: listCache }),
      createListCategoriesHandler(db),
      createListCountriesHandler(db),
      createGetAssetsHandler(db),
      createSearchAssetsHandler(db),
      createAssetPageHandler({ db, marketToday: () => marketToday(marketTz) }),
      createClosesHandler({ db, marketTz, backfill: new ClosesBackfill({ db, iss: deps.moex, logger, marketToday: () => marketToday(marketTz), signal: stopping.signal }) }),
      createDividendsHandler({ db, marketToday: () => marketToday(marketTz) }),
      createCustomAssetsHandler(customAssets),
      createHealthController('screener', res.problems),
    ];
    // Nest's shutdown (close() or a signal) calls stopResources once the NATS server has stopped.
    app = await startRpcService(serviceModule(handlers, stopResources), {
      name: 'screener',
      natsUrl: opts.natsUrl,
      logger,
      busPrefix: opts.busPrefix ?? '',
    });

    // Background work starts after the handlers; it is stopped before the connections it uses.
    const relay = (opts.relay ?? true) ? await res.startRelay({ db, bus, name: 'screener-relay', logger, subjectFor: screenerEventSubject, pollMs: opts.relayPollMs }) : undefined;
    const usedAssets = (opts.usedAssetsConsumer ?? true) ? await res.start(createUsedAssetsConsumer({ db, bus, logger })) : undefined;
    let scheduler: JobScheduler | undefined;
    if (opts.jobs) {
      scheduler = scheduleScreenerJobs(deps, jobs);
      const started = scheduler;
      res.push(() => started.stop());
      logger.debug({ jobs: jobs.scheduled.map((s) => [s.job.name, ...s.args].join(' ')) }, 'screener jobs scheduled');
    }

    const started = app;
    let closing: Promise<void> | undefined;
    return {
      app,
      db,
      bus,
      ...(relay ? { relay } : {}),
      ...(usedAssets ? { usedAssets } : {}),
      ...(scheduler ? { scheduler } : {}),
      jobs,
      runJob: (name, args = []) => {
        const job = jobs.byName[name];
        if (!job) throw new Error(`unknown job ${name}`);
        return runJob(db, job, args, logger);
      },
      close: () => (closing ??= started.close().then(stopResources)),
    };
  } catch (err) {
    if (app) await app.close().catch(() => undefined);
    await stopResources();
    throw err;
  }
}
