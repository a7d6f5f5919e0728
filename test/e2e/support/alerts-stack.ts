/**
 * Alerts end to end for tests: the real screener (demo data, publishing RatesUpdated through its own
 * recorder and relay), portfolios, billing (with the local CloudPayments), alerts and the gateway, on fresh
 * databases and one unique bus prefix. The alerts clock is injectable; `publishRates` records a rate batch
 * the way the screener's rate writer does (its lock, its recorder, its relay to MARKET_EVENTS).
 */
import { randomUUID } from 'node:crypto';
import type { RateChange } from '@invest/contracts';
import { type Bus, connectBus, createLogger, type Logger, streamNameOf } from '@invest/platform';
import { createTestDatabase, eventually, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { type AlertsApp, type AlertsAppOptions, createAlertsApp } from '@invest/alerts/alerts.app';
import { type BillingApp, createBillingApp } from '@invest/billing/billing.app';
import { type FakeCloudPayments, type FakeCloudPaymentsOptions, payNotificationFields, sendSignedNotification, startFakeCloudPayments } from '@invest/billing/testing/fake-cloudpayments';
import { createPortfoliosApp, type PortfoliosApp } from '@invest/portfolios/portfolios.app';
import { recordRatesForTest } from '@invest/screener/testing/rates-test-kit';
import { createScreenerApp, type ScreenerApp } from '@invest/screener/screener.app';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type ApiAnswer, type ApiOptions, gatewayApi } from './gateway-api.js';
import { createGatewayApp, type GatewayApp, type GatewayAppOptions } from '@invest/gateway/gateway.app';

const JWT_SECRET = 'alerts-e2e-secret-0123456789-0123456789';
/** The stack's local CloudPayments API secret, which signs its notifications. */
export const CP_SECRET = 'alerts_e2e_cloudpayments_secret';

export interface AlertsStack {
  base: string;
  /** The bus prefix every service of the stack runs on (another service can join it). */
  busPrefix: string;
  screener: ScreenerApp;
  portfolios: PortfoliosApp;
  billing: BillingApp;
  alerts: AlertsApp;
  gw: GatewayApp;
  bus: Bus;
  provider: FakeCloudPayments;
  /** The alerts services' clock; tests move it. */
  clock: { now: Date };
  shareIds: Record<string, number>;
  token(userId: string): Promise<string>;
  /**
   * An HTTP call to the gateway, as `user` when given: `body` as JSON (or `raw` text as sent), the answer's body
   * parsed as JSON when it is JSON (read loosely: the tests check its shape) and its text.
   */
  api(method: string, path: string, opts?: ApiOptions): Promise<ApiAnswer>;
  /** Records one RatesUpdated batch through the screener's recorder (published by its relay). */
  publishRates(rates: readonly StackRate[]): Promise<void>;
  /**
   * `publishRates`, then waits until the alerts consumer has applied the batch (its last rate is the latest stored;
   * the evaluation commits with it) and a moment for the relay to publish what fired.
   */
  applyRates(rates: readonly StackRate[]): Promise<void>;
  /** The `assetable` of a share of the demo data, by ticker. */
  share(ticker: string): { type: 'share'; id: number };
  /** The step keys of a notification's stored firings, in the order they fired. */
  firings(notificationId: number): Promise<{ step_key: string }[]>;
  /** Pays for `basic-m` at the local CloudPayments and confirms it (`POST /api/subscribe`); alerts then sees the paid plan. */
  subscribePaid(userId: string): Promise<void>;
  /**
   * Pays for `basic-m` again as the provider reports it (a signed Pay notification): a user with a running
   * subscription gets it extended. Alerts learns it from BILLING_EVENTS (unlike `subscribePaid`, this drops none of its copies).
   */
  payAgain(userId: string): Promise<void>;
  /** Another alerts instance on the same database and bus. */
  addAlertsInstance(over?: Partial<AlertsAppOptions>): Promise<AlertsApp>;
  close(): Promise<void>;
}

/** The opening prices most alerts tests start from: SBER 100, GAZP 200, LKOH 300, no 24h change. */
export const OPENING_RATES: readonly StackRate[] = [
  { ticker: 'SBER', rate: 100, change: 0 },
  { ticker: 'GAZP', rate: 200, change: 0 },
  { ticker: 'LKOH', rate: 300, change: 0 },
];

export interface AlertsStackOptions {
  tickers: string[];
  /** Rates applied (`applyRates`) once the stack runs, before it is returned: the tests' opening prices. */
  openingRates?: readonly StackRate[];
  alerts?: Partial<AlertsAppOptions>;
  provider?: Omit<Partial<FakeCloudPaymentsOptions>, 'publicId' | 'apiSecret'>;
  gateway?: Omit<Partial<GatewayAppOptions>, 'natsUrl' | 'busPrefix' | 'logger'>;
}

/** One rate of a test batch: the ticker's rate and 24h change, at `asOf` (the stack's clock when not given). */
export interface StackRate {
  ticker: string;
  rate: number | null;
  change: number | null;
  asOf?: Date;
}

export async function startAlertsStack(name: string, opts: AlertsStackOptions): Promise<AlertsStack> {
  const busPrefix = `${uniqueName(name)}.`;
  const logger: Logger = createLogger('test', 'silent');
  const natsUrl = testNatsUrl();
  const dbs = await Promise.all(['scr', 'pf', 'bill', 'al'].map((s) => createTestDatabase(`${name}_${s}`)));
  const [screenerDb, portfoliosDb, billingDb, alertsDb] = dbs as [(typeof dbs)[0], (typeof dbs)[0], (typeof dbs)[0], (typeof dbs)[0]];
  const clock = { now: new Date() };
  const provider = await startFakeCloudPayments({ ...opts.provider, publicId: 'pk_alerts', apiSecret: CP_SECRET });
  const screener = await createScreenerApp({ loadDemoData: true, databaseUrl: screenerDb.url, natsUrl, busPrefix, logger, relayPollMs: 50 });
  const shareIds: Record<string, number> = {};
  const tickers = new Map<string, { id: number; currency: string | null }>();
  for (const r of await screener.db.query<{ id: string; ticker: string; currency: string | null }>(
    "select id::text, ticker, currency from assets where type = 'share' and ticker = any($1::text[])",
    [opts.tickers],
  )) {
    shareIds[r.ticker] = Number(r.id);
    tickers.set(r.ticker, { id: Number(r.id), currency: r.currency });
  }
  const missing = opts.tickers.filter((t) => !(t in shareIds));
  if (missing.length) throw new Error(`demo data lacks ${missing.join(', ')}`);
  const portfolios = await createPortfoliosApp({ databaseUrl: portfoliosDb.url, natsUrl, busPrefix, logger, relayPollMs: 50 });
  const billing = await createBillingApp({
    databaseUrl: billingDb.url,
    natsUrl,
    busPrefix,
    logger,
    relayPollMs: 50,
    cloudPayments: { baseUrl: provider.url, publicId: 'pk_alerts', apiSecret: CP_SECRET, timeoutMs: 2000, retries: 1, backoffMs: 50 },
  });
  const alertsOptions: AlertsAppOptions = { databaseUrl: alertsDb.url, natsUrl, busPrefix, logger, clock: () => clock.now, rpcTimeoutMs: 5000, ...opts.alerts };
  const alerts = await createAlertsApp(alertsOptions);
  const instances = [alerts];
  const gw = await createGatewayApp({
    natsUrl,
    busPrefix,
    logger,
    auth: { jwtSecret: JWT_SECRET },
    rpcTimeoutMs: 10_000,
    // The backstop poll far beyond the tests' waits: live delivery has to come from ALERTS_EVENTS.
    notificationStream: { pollMs: 120_000, heartbeatMs: 300 },
    // The development payment widget stand-in pays at this stack's provider.
    payments: { publicId: 'pk_alerts', widgetUrl: provider.widgetUrl },
    ...opts.gateway,
  });
  const base = await gw.listen(0, '127.0.0.1');
  const bus = await connectBus({ natsUrl, name: `${name}-test`, prefix: busPrefix });

  const publishRates: AlertsStack['publishRates'] = async (rates) => {
    const changes: RateChange[] = rates.map((r) => {
      const t = tickers.get(r.ticker);
      if (!t) throw new Error(`unknown ticker ${r.ticker}`);
      return { assetType: 'share', assetId: t.id, ticker: r.ticker, currency: t.currency, rate: r.rate, priceChangePercentage24h: r.change, asOf: (r.asOf ?? clock.now).toISOString() };
    });
    await recordRatesForTest(screener.db, 'share', `test-${randomUUID().slice(0, 8)}`, changes, logger);
  };
  const stack: AlertsStack = {
    base,
    busPrefix,
    screener,
    portfolios,
    billing,
    alerts,
    gw,
    bus,
    provider,
    clock,
    shareIds,
    token: (userId) => mintDevToken(userId, JWT_SECRET),
    api: gatewayApi(base, (userId) => mintDevToken(userId, JWT_SECRET)),
    publishRates,
    async applyRates(rates) {
      await publishRates(rates);
      const last = rates[rates.length - 1]!;
      const asOf = (last.asOf ?? clock.now).getTime();
      await eventually(
        () => alerts.db.query<{ as_of: Date; rate: string | null }>("select as_of, rate from latest_rates where asset_type = 'share' and asset_id = $1", [shareIds[last.ticker]]),
        // `rate` is numeric text: the decimal of the number the batch carried.
        (rows) => rows.length === 1 && new Date(rows[0]!.as_of).getTime() === asOf && (rows[0]!.rate === null ? null : Number(rows[0]!.rate)) === last.rate,
        `rate of ${last.ticker}`,
      );
      await new Promise((r) => setTimeout(r, 100));
    },
    share(ticker) {
      const id = shareIds[ticker];
      if (id === undefined) throw new Error(`the stack was not started with ${ticker}`);
      return { type: 'share', id };
    },
    firings: (notificationId) => alerts.db.query('select step_key from notification_firings where notification_id = $1 order by id', [notificationId]),
    async subscribePaid(userId) {
      const uuid = randomUUID();
      provider.addPayment({ AccountId: userId, Amount: 299, InvoiceId: uuid });
      const res = await stack.api('POST', '/api/subscribe', { user: userId, body: { uuid, plan: 'basic-m' } });
      if (res.status !== 200) throw new Error(`subscribe answered ${res.status}: ${res.text}`);
      alerts.entitlements.invalidate(userId);
    },
    async payAgain(userId) {
      // The provider's recurring charge (it names its subscription): billing's clock has not passed the paid end,
      // and a widget purchase of the same plan minutes after the last one would be a repeat, refunded.
      const payment = provider.addPayment({ AccountId: userId, Amount: 299, InvoiceId: randomUUID(), SubscriptionId: `sc_renewal_${randomUUID().slice(0, 8)}` });
      const res = await sendSignedNotification(new URL('/api/provider/payment-success', base).toString(), payNotificationFields(payment), CP_SECRET);
      if (res.status !== 200 || res.body !== '{"code":0}') throw new Error(`the payment notification answered ${res.status}: ${res.body}`);
    },
    async addAlertsInstance(over = {}) {
      const app = await createAlertsApp({ ...alertsOptions, ...over });
      instances.push(app);
      return app;
    },
    async close() {
      await gw.close();
      for (const i of instances.reverse()) await i.close();
      await billing.close();
      await portfolios.close();
      await screener.close();
      await provider.close();
      for (const ctx of ['portfolios', 'market', 'alerts', 'billing'] as const) await bus.jsm.streams.delete(streamNameOf(bus, ctx)).catch(() => undefined);
      await bus.close();
      for (const d of dbs) await d.drop();
    },
  };
  if (opts.openingRates?.length) {
    try {
      await stack.applyRates(opts.openingRates);
    } catch (err) {
      await stack.close();
      throw err;
    }
  }
  return stack;
}
