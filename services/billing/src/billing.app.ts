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
import { DEFAULT_RECEIPT, type ReceiptSettings } from './plans/receipt.js';
import { ReceiptWatch } from './subscriptions/receipt-watch.js';

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
  /** What a charge's receipt says (`BILLING_RECEIPT_*`); the demo defaults when not given. */
  receipt?: ReceiptSettings;
  /** A charge with no receipt this long after its payment is an error and fails /ready (default an hour). */
  receiptDeadlineMs?: number;
  /** How often the missing receipts are looked for besides each health ping (default 5 minutes). */
  receiptCheckMs?: number;
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
    const billing = new BillingService(db, provider, { plans, apiSecret: cp.apiSecret, acceptTestPayments: cp.acceptTestPayments ?? true, clock, logger, receipt: opts.receipt ?? DEFAULT_RECEIPT });
    const receipts = new ReceiptWatch(db, { deadlineMs: opts.receiptDeadlineMs ?? 3_600_000, clock, logger });
    const app = await res.startApp([createHealthController('billing', () => receipts.problems(), res.problems), createBillingHandler(billing)], { name: 'billing', natsUrl: opts.natsUrl, logger, busPrefix: opts.busPrefix });

    await res.startRelay({ db, bus, name: 'billing-relay', logger, subjectFor: (e) => eventSubject('billing', e.type), pollMs: opts.relayPollMs });

    // The missing receipts are logged when found, not only when someone asks /ready.
    const receiptTimer = setInterval(() => void receipts.problems().catch((err: unknown) => logger.warn({ err }, 'billing: the missing-receipt check failed')), opts.receiptCheckMs ?? 300_000);
    receiptTimer.unref();
    res.push(() => clearInterval(receiptTimer));

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
