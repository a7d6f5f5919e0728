import 'reflect-metadata';
import type { INestMicroservice } from '@nestjs/common';
import { eventSubject } from '@invest/contracts';
import { type Bus, createHealthController, createLogger, type Db, JobScheduler, type Logger, ServiceResources } from '@invest/platform';
import { createBillingHandler } from './billing.handler.js';
import { BillingService } from './billing.service.js';
import { clearOutdatedSubscriptionsJob, reconcileSubscriptionsJob } from './jobs/billing-jobs.js';
import { migrations } from './migrations/index.js';
import { DEFAULT_PRICES, type Plan, planCatalog, type PlanPrices } from './plans/plan-catalog.js';
import { upsertPlans } from './plans/plan-rows.js';
import { CloudPaymentsClient } from './provider/cloudpayments.client.js';

export interface BillingAppOptions {
  databaseUrl: string;
  natsUrl: string;
  /** `JETSTREAM_REPLICAS` (default 1): replicas of the streams this service creates or updates. */
  jetstreamReplicas?: number;
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
  const res = new ServiceResources(logger);
  return res.boot(async () => {
    const db = await res.openDatabase({ url: opts.databaseUrl, migrations, logger });
    const plans = planCatalog(opts.prices ?? DEFAULT_PRICES);
    await upsertPlans(db, plans);
    const bus = await res.connectBus({ natsUrl: opts.natsUrl, replicas: opts.jetstreamReplicas, name: 'billing', prefix: opts.busPrefix }, ['billing']);

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
    const app = await res.startApp([createHealthController('billing'), createBillingHandler(billing)], { name: 'billing', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix });

    await res.startRelay({ db, bus, name: 'billing-relay', logger, subjectFor: (e) => eventSubject('billing', e.type), pollMs: opts.relayPollMs });

    if (opts.jobsEnabled) {
      const scheduler = new JobScheduler(db, logger);
      const deps = { db, billing, logger, clock, marketTz: opts.marketTz ?? 'Europe/Moscow' };
      scheduler.schedule(clearOutdatedSubscriptionsJob(deps));
      scheduler.schedule(reconcileSubscriptionsJob(deps));
      res.push(() => scheduler.stop());
    }

    logger.debug({ busPrefix: opts.busPrefix || undefined, provider: cp.baseUrl }, 'billing service started');
    return { app, db, bus, billing, plans, close: res.close };
  });
}
