import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import type { MarketEvent, PortfolioEvent } from '@invest/contracts';
import { type Bus, createHealthController, createLogger, type Db, type DurableConsumer, JobScheduler, type Logger, ServiceResources } from '@invest/platform';
import { createAlertsHandler } from './alerts.handler.js';
import { FiringPublisher } from './delivery/firing-publisher.js';
import { AlertsEvaluator } from './evaluation/alerts-evaluator.js';
import { NotificationEventsService } from './inbox/notification-events.service.js';
import { dailyResetJob, priceAlertsJob, priceChangeAlertsJob } from './jobs/alerts-jobs.js';
import { paidAccessJob } from './jobs/paid-access.job.js';
import { createPortfolioEventsConsumer } from './membership/portfolio-events.consumer.js';
import { migrations } from './migrations/index.js';
import { NotificationService } from './notifications/notification.service.js';
import { createBillingEventsConsumer } from './plans/billing-events.consumer.js';
import { EntitlementsClient } from './plans/entitlements.client.js';
import { createAssetDeletedConsumer, createRatesUpdatedConsumer } from './rates/rates-updated.consumer.js';
import { allowHeapGrowth, DEFAULT_HEAP_GROWING_PERCENT } from './runtime/heap-growth.js';

export interface AlertsAppOptions {
  databaseUrl: string;
  natsUrl: string;
  /** `JETSTREAM_REPLICAS` (default 1): replicas of the streams this service creates or updates. */
  jetstreamReplicas?: number;
  busPrefix: string;
  logger?: Logger;
  marketTz?: string;
  /** Rates older than this never fire (default 60 minutes). */
  maxRateAgeMs?: number;
  entitlementsTtlMs?: number;
  rpcTimeoutMs?: number;
  /** Notifications one user may have, active or not (`ALERTS_MAX_PER_USER`, default 500). */
  notificationsPerUser?: number;
  /** Run the sweeps notify:price-alerts and notify:price-change-alerts, the daily reset and notify:record-paid-access on their schedules. */
  jobsEnabled?: boolean;
  /** Now, for evaluation, cooldowns and the daily reset (tests move it). */
  clock?: () => Date;
  /** NotificationFired not acknowledged by JetStream after this long is published again from the database (default 10 s). */
  publicationGraceMs?: number;
  /** How often that backstop runs (default 5 s). */
  publicationBackstopPollMs?: number;
  /** Start the RatesUpdated consumer (default true; a test can run an instance without it). */
  consumeRates?: boolean;
  /**
   * Old-generation growth between full collections, in percent of the live heap, once the candidate index is
   * loaded (`ALERTS_HEAP_GROWING_PERCENT`, default 300; 0: V8's own). Process-wide: it sets a V8 flag.
   */
  heapGrowingPercent?: number;
}

export interface AlertsApp {
  app: INestMicroservice;
  db: Db;
  bus: Bus;
  evaluator: AlertsEvaluator;
  publisher: FiringPublisher;
  ratesConsumer: DurableConsumer<MarketEvent> | undefined;
  portfolioConsumer: DurableConsumer<PortfolioEvent>;
  entitlements: EntitlementsClient;
  close(): Promise<void>;
}

/**
 * Boots the alerts service: database (migrations, seeded notification types), NATS handlers, the
 * RatesUpdated consumer that evaluates notifications, the membership consumer on PORTFOLIOS_EVENTS, the
 * paid-access consumer on BILLING_EVENTS, the publisher of NotificationFired to ALERTS_EVENTS (with its backstop) and (optionally) the backstop sweeps.
 */
export async function createAlertsApp(opts: AlertsAppOptions): Promise<AlertsApp> {
  const logger = opts.logger ?? createLogger('alerts');
  const clock = opts.clock ?? (() => new Date());
  const marketTz = opts.marketTz ?? 'Europe/Moscow';
  const res = new ServiceResources(logger);
  return res.boot(async () => {
    // Rate batches come a minute apart: connections idle past pg-pool's 10 s would be new backends, with cold
    // catalogue caches, for every batch (13–18 ms more Postgres CPU a batch at a one-minute cadence: docs/decisions/0025-alerts-candidate-index.md).
    const db = await res.openDatabase({ url: opts.databaseUrl, migrations, logger, poolIdleTimeoutMs: 5 * 60_000 });
    // The market, portfolios and billing streams are ensured here too (same definitions as their owners'), so the
    // services start in any order.
    // No async stack traces: nats.js builds two Error objects (stack captures) per request for them, most of the
    // cost of publishing a NotificationFired when a batch fires hundreds (a failure still says what failed).
    const bus = await res.connectBus(
      { natsUrl: opts.natsUrl, replicas: opts.jetstreamReplicas, name: 'alerts', prefix: opts.busPrefix, connection: { noAsyncTraces: true } },
      ['alerts', 'market', 'portfolios', 'billing'],
    );
    const rpc = await res.connectRpc({ natsUrl: opts.natsUrl, name: 'alerts-client', defaultTimeoutMs: opts.rpcTimeoutMs ?? 3000, busPrefix: opts.busPrefix });
    const entitlements = new EntitlementsClient(rpc, opts.entitlementsTtlMs ?? 30_000, logger);
    entitlements.followBillingEvents(bus);
    res.push(() => entitlements.stop());

    const evaluator = new AlertsEvaluator({ logger, clock, maxRateAgeMs: opts.maxRateAgeMs ?? 60 * 60_000, marketTz });
    await evaluator.loadTypes(db);
    const notifications = new NotificationService({ db, rpc, entitlements, logger, clock, marketTz, perUser: opts.notificationsPerUser });
    const events = new NotificationEventsService(db, clock);
    const app = await res.startApp([createHealthController('alerts', res.problems), createAlertsHandler({ db, notifications, events })], { name: 'alerts', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix });

    const publisher = await res.start(
      new FiringPublisher({
        db,
        bus,
        logger,
        ...(opts.publicationGraceMs !== undefined ? { graceMs: opts.publicationGraceMs } : {}),
        ...(opts.publicationBackstopPollMs !== undefined ? { backstopPollMs: opts.publicationBackstopPollMs } : {}),
      }),
    );
    const portfolioConsumer = await res.start(createPortfolioEventsConsumer({ db, bus, logger, clock }));
    await res.start(createAssetDeletedConsumer({ db, bus, logger, evaluator, publisher }));
    // Until when each user's paid access runs, which evaluation compares with its clock (README, "When paid access
    // ends"), and the inbox notice of a declined charge (README, "Account notices").
    await res.start(createBillingEventsConsumer({ db, bus, logger, entitlements, notices: { publisher, clock, marketTz } }));
    // Before the rates consumer: an event is evaluated against every notification the database holds.
    if (opts.consumeRates !== false) {
      await evaluator.loadIndex(db);
      allowHeapGrowth(opts.heapGrowingPercent ?? DEFAULT_HEAP_GROWING_PERCENT);
    }
    const ratesConsumer = opts.consumeRates !== false ? await res.start(createRatesUpdatedConsumer({ db, bus, logger, evaluator, publisher })) : undefined;

    if (opts.jobsEnabled) {
      const scheduler = new JobScheduler(db, logger);
      scheduler.schedule(priceAlertsJob(db, evaluator, publisher));
      scheduler.schedule(priceChangeAlertsJob(db, evaluator, publisher));
      scheduler.schedule(dailyResetJob(db, clock, marketTz));
      // At start too: users whose paid access began before alerts recorded it are paused once it ends.
      scheduler.schedule(paidAccessJob(db, entitlements, logger), [], undefined, { atStart: true });
      res.push(() => scheduler.stop());
    }

    logger.debug({ busPrefix: opts.busPrefix || undefined }, 'alerts service started');
    return { app, db, bus, evaluator, publisher, ratesConsumer, portfolioConsumer, entitlements, close: res.close };
  });
}
