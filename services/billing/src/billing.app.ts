import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { eventSubject } from '@invest/contracts';
import {
  type Bus,
  connectBus,
  createLogger,
  type Db,
  ensureEventStream,
  EventRelay,
  JobScheduler,
  type Logger,
  openDatabase,
  ShutdownStack,
  startRpcService,
} from '@invest/platform';
import { BillingModule } from './billing.module.js';
import { BillingService } from './billing.service.js';
import { clearOutdatedSubscriptionsJob, reconcileSubscriptionsJob } from './jobs/billing-jobs.js';
import { migrations } from './migrations/index.js';
import { DEFAULT_PRICES, type Plan, planCatalog, type PlanPrices } from './plans/plan-catalog.js';
import { upsertPlans } from './plans/plan-rows.js';
import { CloudPaymentsClient } from './provider/cloudpayments.client.js';

export interface BillingAppOptions {
  databaseUrl: string;
  natsUrl: string;
  busPrefix: string;
  logger?: Logger;
  prices?: PlanPrices;
  cloudPayments: { baseUrl: string; publicId: string; apiSecret: string; acceptTestPayments?: boolean; timeoutMs?: number; retries?: number; backoffMs?: number };
  /** Run clear:outdated-subscriptions and billing:reconcile on their schedules. */
  jobsEnabled?: boolean;
  marketTz?: string;
  clock?: () => Date;
  relayPollMs?: number;
}

export interface BillingApp {
  app: INestMicroservice;
  db: Db;
  bus: Bus;
  billing: BillingService;
  plans: Plan[];
  close(): Promise<void>;
}

/**
 * Boots the billing service: database (migrations, configured plans), NATS handlers, the relay of the
 * billing events to BILLING_EVENTS, and (optionally) its daily jobs.
 */
export async function createBillingApp(opts: BillingAppOptions): Promise<BillingApp> {
  const logger = opts.logger ?? createLogger('billing');
  const clock = opts.clock ?? (() => new Date());
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
    const plans = planCatalog(opts.prices ?? DEFAULT_PRICES);
    await upsertPlans(db, plans);
    const bus = await connectBus({ natsUrl: opts.natsUrl, name: 'billing', prefix: opts.busPrefix });
    cleanup.push(() => bus.close());
    await ensureEventStream(bus, 'billing');

    const cp = opts.cloudPayments;
    const provider = new CloudPaymentsClient({
      baseUrl: cp.baseUrl,
      publicId: cp.publicId,
      apiSecret: cp.apiSecret,
      timeoutMs: cp.timeoutMs ?? 10_000,
      retries: cp.retries ?? 2,
      backoffMs: cp.backoffMs ?? 300,
      logger,
    });
    const billing = new BillingService(db, provider, { plans, apiSecret: cp.apiSecret, acceptTestPayments: cp.acceptTestPayments ?? true, clock, logger });
    app = await startRpcService(BillingModule.register({ billing, stopResources }), { name: 'billing', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix });

    const relay = new EventRelay({
      db,
      bus,
      name: 'billing-relay',
      logger,
      subjectFor: (e) => eventSubject('billing', e.type),
      ...(opts.relayPollMs ? { pollMs: opts.relayPollMs } : {}),
    });
    await relay.start();
    cleanup.push(() => relay.stop());

    if (opts.jobsEnabled) {
      const scheduler = new JobScheduler(db, logger);
      const deps = { db, billing, logger, clock, marketTz: opts.marketTz ?? 'Europe/Moscow' };
      scheduler.schedule(clearOutdatedSubscriptionsJob(deps));
      scheduler.schedule(reconcileSubscriptionsJob(deps));
      cleanup.push(() => scheduler.stop());
    }

    logger.info({ busPrefix: opts.busPrefix || undefined, provider: cp.baseUrl }, 'billing service started');
    return { app, db, bus, billing, plans, close };
  } catch (err) {
    await close();
    throw err;
  }
}
