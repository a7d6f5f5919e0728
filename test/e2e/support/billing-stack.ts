/**
 * Billing end to end for tests: the real billing service and the gateway on a fresh database and a unique bus
 * prefix, with the local CloudPayments (API and signed notifications). `addInstance()` starts another
 * billing instance on the same database and bus (the NATS queue group shares the requests between them).
 */
import { connectBus, createLogger, streamNameOf, type Bus, type Db } from '@invest/platform';
import { createTestDatabase, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { type BillingApp, createBillingApp } from '@invest/billing/billing.app';
import { randomUUID } from 'node:crypto';
import {
  type FakeCloudPayments,
  type FakeCloudPaymentsOptions,
  type FakePayment,
  type FakeSubscription,
  payNotificationFields,
  sendSignedNotification,
  startFakeCloudPayments,
} from '@invest/billing/testing/fake-cloudpayments';
import { mintDevToken } from '@invest/gateway/testing/gateway-test-kit';
import { type ApiAnswer, type ApiOptions, gatewayApi } from './gateway-api.js';
import { createGatewayApp, type GatewayApp } from '@invest/gateway/gateway.app';

export const CP_SECRET = 'e2e_cloudpayments_secret';
export const CP_PUBLIC_ID = 'pk_e2e_public';
const JWT_SECRET = 'billing-e2e-secret-0123456789-0123456789';

export interface BillingStack {
  base: string;
  billing: BillingApp;
  db: Db;
  gw: GatewayApp;
  bus: Bus;
  provider: FakeCloudPayments;
  /** The billing services' clock; tests move it. */
  clock: { now: Date };
  token(userId: string): Promise<string>;
  /** An HTTP call to the gateway (`gatewayApi`). */
  api(method: string, path: string, opts?: ApiOptions): Promise<ApiAnswer>;
  addInstance(): Promise<BillingApp>;
  close(): Promise<void>;
}

/**
 * A widget payment with its recurrent charge, as the provider makes them: the payment, the provider subscription
 * (first charge `months` on, on the billing clock; not named in the Pay notification) and the signed Pay
 * notification, whose answer is returned for the test to check.
 */
export async function payWithRecurrent(
  stack: BillingStack,
  userId: string,
  { amount = 299, months = 1 }: { amount?: number; months?: number } = {},
): Promise<{ payment: FakePayment; sub: FakeSubscription; notified: { status: number; body: string } }> {
  const payment = stack.provider.addPayment({ AccountId: userId, Amount: amount, InvoiceId: randomUUID() });
  const start = new Date(stack.clock.now);
  start.setUTCMonth(start.getUTCMonth() + months);
  const iso = start.toISOString().slice(0, 19);
  const sub: FakeSubscription = { Id: `sc_${randomUUID().replaceAll('-', '').slice(0, 24)}`, AccountId: userId, Amount: amount, Currency: 'RUB', Status: 'Active', Interval: 'Month', Period: months, NextTransactionDateIso: iso, StartDateIso: iso };
  stack.provider.subscriptions.push(sub);
  const notified = await sendSignedNotification(new URL('/api/provider/payment-success', stack.base).toString(), payNotificationFields(payment), CP_SECRET);
  return { payment, sub, notified };
}

/**
 * `gatewayLog` / `billingLog`: receive the gateway's or the billing services' log lines (warnings and up), for a
 * test that checks what they log. The gateway's `/ready` checks billing only.
 */
export async function startBillingStack(name: string, opts: { gatewayLog?: (line: string) => void; billingLog?: (line: string) => void } = {}): Promise<BillingStack> {
  const busPrefix = `${uniqueName(name)}.`;
  const silent = createLogger('test', 'silent');
  const logger = opts.billingLog ? createLogger('billing', 'warn', { write: opts.billingLog }) : silent;
  const database = await createTestDatabase(name);
  const natsUrl = testNatsUrl();
  const providerOptions: FakeCloudPaymentsOptions = { publicId: CP_PUBLIC_ID, apiSecret: CP_SECRET };
  const provider = await startFakeCloudPayments(providerOptions);
  const clock = { now: new Date() };
  const options = {
    databaseUrl: database.url,
    natsUrl,
    busPrefix,
    logger,
    clock: () => clock.now,
    relayPollMs: 100,
    cloudPayments: { baseUrl: provider.url, publicId: CP_PUBLIC_ID, apiSecret: CP_SECRET, timeoutMs: 2000, retries: 1, backoffMs: 50 },
  };
  const billing = await createBillingApp(options);
  const instances: BillingApp[] = [billing];
  const gatewayLogger = opts.gatewayLog ? createLogger('gateway', 'warn', { write: opts.gatewayLog }) : silent;
  const gw = await createGatewayApp({ natsUrl, busPrefix, logger: gatewayLogger, auth: { jwtSecret: JWT_SECRET }, rpcTimeoutMs: 10_000, readyServices: ['billing'] });
  const base = await gw.listen(0, '127.0.0.1');
  // The provider's refunds, declines and subscription changes notify the gateway, as its cabinet's URLs would.
  providerOptions.refundNotifyUrl = new URL('/api/provider/refund', base).toString();
  providerOptions.failNotifyUrl = new URL('/api/provider/fail', base).toString();
  providerOptions.recurrentNotifyUrl = new URL('/api/provider/recurrent', base).toString();
  // Its widget payments (`/demo/pay`) notify the gateway, and their receipts follow (`provider.sendReceipts(false)`: never).
  providerOptions.notifyUrl = new URL('/api/provider/payment-success', base).toString();
  providerOptions.receiptNotifyUrl = new URL('/api/provider/receipt', base).toString();
  const bus = await connectBus({ natsUrl, name: `${name}-test`, prefix: busPrefix });
  return {
    base,
    billing,
    db: billing.db,
    gw,
    bus,
    provider,
    clock,
    token: (userId) => mintDevToken(userId, JWT_SECRET),
    api: gatewayApi(base, (userId) => mintDevToken(userId, JWT_SECRET)),
    async addInstance() {
      const app = await createBillingApp(options);
      instances.push(app);
      return app;
    },
    async close() {
      await gw.close();
      for (const i of instances.reverse()) await i.close();
      await provider.close();
      await bus.jsm.streams.delete(streamNameOf(bus, 'billing')).catch(() => undefined);
      await bus.close();
      await database.drop();
    },
  };
}
