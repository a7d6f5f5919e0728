import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import type { MarketEvent, PortfolioEvent } from '@invest/contracts';
import {
  type Bus,
  connectBus,
  createLogger,
  type Db,
  type DurableConsumer,
  ensureEventStream,
  EventRelay,
  JobScheduler,
  type Logger,
  openDatabase,
  RpcClient,
  ShutdownStack,
  startRpcService,
} from '@invest/platform';
import { AlertsModule } from './alerts.module.js';
import { AlertsEvaluator, alertsEventSubject } from './evaluation/alerts-evaluator.js';
import { NotificationEventsService } from './inbox/notification-events.service.js';
import { dailyResetJob, priceAlertsJob, priceChangeAlertsJob } from './jobs/alerts-jobs.js';
import { createPortfolioEventsConsumer } from './membership/portfolio-events.consumer.js';
import { migrations } from './migrations/index.js';
import { NotificationService } from './notifications/notification.service.js';
import { EntitlementsClient } from './plans/entitlements.client.js';
import { createAssetDeletedConsumer, createRatesUpdatedConsumer } from './rates/rates-updated.consumer.js';

export interface AlertsAppOptions {
  databaseUrl: string;
  natsUrl: string;
  busPrefix: string;
  logger?: Logger;
  marketTz?: string;
  /** Rates older than this never fire (default 60 minutes). */
  maxRateAgeMs?: number;
  entitlementsTtlMs?: number;
  rpcTimeoutMs?: number;
  /** Run the sweeps notify:price-alerts and notify:price-change-alerts on their schedules. */
  jobsEnabled?: boolean;
  /** Now, for evaluation, cooldowns and the daily reset (tests move it). */
  clock?: () => Date;
  relayPollMs?: number;
  /** Events the relay publishes per read (default 500: a rate batch can fire thousands at once). */
  relayBatchSize?: number;
  /** Start the RatesUpdated consumer (default true; a test can run an instance without it). */
  consumeRates?: boolean;
  ratesConsumer?: { batchSize?: number; afterCommit?: (event: MarketEvent) => void | Promise<void> };
}

export interface AlertsApp {
  app: INestMicroservice;
  db: Db;
  bus: Bus;
  evaluator: AlertsEvaluator;
  relay: EventRelay;
  ratesConsumer: DurableConsumer<MarketEvent> | undefined;
  portfolioConsumer: DurableConsumer<PortfolioEvent>;
  entitlements: EntitlementsClient;
  close(): Promise<void>;
}

/**
 * Boots the alerts service: database (migrations, seeded notification types), NATS handlers, the
 * RatesUpdated consumer that evaluates notifications, the membership consumer on PORTFOLIOS_EVENTS, the
 * relay of NotificationFired to ALERTS_EVENTS and (optionally) the backstop sweeps.
 */
export async function createAlertsApp(opts: AlertsAppOptions): Promise<AlertsApp> {
  const logger = opts.logger ?? createLogger('alerts');
  const clock = opts.clock ?? (() => new Date());
  const marketTz = opts.marketTz ?? 'Europe/Moscow';
  const cleanup = new ShutdownStack(logger);
  const stopResources = () => cleanup.stop();
  let app: INestMicroservice | undefined;
  const close = async () => {
    if (app) await app.close();
    await stopResources();
  };
  try {
    const db = await openDatabase({ url: opts.databaseUrl, migrations, logger });
    cleanup.push(() => db.close());
    const bus = await connectBus({ natsUrl: opts.natsUrl, name: 'alerts', prefix: opts.busPrefix });
    cleanup.push(() => bus.close());
    // Created here too (same definitions as their owners'), so the services start in any order.
    await ensureEventStream(bus, 'alerts');
    await ensureEventStream(bus, 'market');
    await ensureEventStream(bus, 'portfolios');

    const rpc = RpcClient.create({ natsUrl: opts.natsUrl, name: 'alerts-client', defaultTimeoutMs: opts.rpcTimeoutMs ?? 3000, busPrefix: opts.busPrefix });
    await rpc.connect();
    cleanup.push(() => rpc.close());
    const entitlements = new EntitlementsClient(rpc, opts.entitlementsTtlMs ?? 30_000, logger);
    entitlements.followBillingEvents(bus);
    cleanup.push(() => entitlements.stop());

    const evaluator = new AlertsEvaluator({ logger, clock, maxRateAgeMs: opts.maxRateAgeMs ?? 60 * 60_000, marketTz });
    await evaluator.loadTypes(db);
    const notifications = new NotificationService({ db, rpc, entitlements, logger, clock, marketTz });
    const events = new NotificationEventsService(db, clock);
    app = await startRpcService(AlertsModule.register({ notifications, events, stopResources }), { name: 'alerts', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix });

    const relay = new EventRelay({ db, bus, name: 'alerts-relay', logger, subjectFor: alertsEventSubject, batchSize: opts.relayBatchSize ?? 500, ...(opts.relayPollMs ? { pollMs: opts.relayPollMs } : {}) });
    await relay.start();
    cleanup.push(() => relay.stop());

    const portfolioConsumer = createPortfolioEventsConsumer({ db, bus, logger, clock });
    await portfolioConsumer.start();
    cleanup.push(() => portfolioConsumer.stop());

    const assetDeletedConsumer = createAssetDeletedConsumer({ db, bus, logger, evaluator });
    await assetDeletedConsumer.start();
    cleanup.push(() => assetDeletedConsumer.stop());

    let ratesConsumer: DurableConsumer<MarketEvent> | undefined;
    if (opts.consumeRates !== false) {
      ratesConsumer = createRatesUpdatedConsumer({ db, bus, logger, evaluator, ...opts.ratesConsumer });
      await ratesConsumer.start();
      const started = ratesConsumer;
      cleanup.push(() => started.stop());
    }

    if (opts.jobsEnabled) {
      const scheduler = new JobScheduler(db, logger);
      scheduler.schedule(priceAlertsJob(db, evaluator));
      scheduler.schedule(priceChangeAlertsJob(db, evaluator));
      scheduler.schedule(dailyResetJob(db, clock, marketTz));
      cleanup.push(() => scheduler.stop());
    }

    logger.info({ busPrefix: opts.busPrefix || undefined }, 'alerts service started');
    return { app, db, bus, evaluator, relay, ratesConsumer, portfolioConsumer, entitlements, close };
  } catch (err) {
    await close();
    throw err;
  }
}
