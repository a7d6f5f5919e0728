import type { DemoProviders, RunningDemoProviders } from '@invest/platform/demo/demo-providers';
import { DEV_CLOUDPAYMENTS_SECRET } from '../config/billing.config.js';
import { DEFAULT_PRICES } from '../plans/plan-catalog.js';
import { startFakeCloudPayments } from './fake-cloudpayments.js';

/**
 * The payment provider of `npm start` in development: the local CloudPayments of the tests on a free port,
 * with the credentials and prices billing is configured with, notifying the gateway of this stack (`PORT`),
 * and its widget script for the web client's checkout.
 */
export const demoProviders: DemoProviders = {
  description: 'CloudPayments served locally',
  variables: ['CLOUDPAYMENTS_API_URL', 'CLOUDPAYMENTS_WIDGET_URL'],
  async start(): Promise<RunningDemoProviders> {
    const env = process.env;
    // A real CloudPayments configured: its own widget goes with it (the gateway's default), not a local one.
    if (env.CLOUDPAYMENTS_API_URL) return { env: {}, hint: 'CLOUDPAYMENTS_API_URL is set: the provider\'s own widget', close: () => Promise.resolve() };
    const fake = await startFakeCloudPayments({
      publicId: env.CLOUDPAYMENTS_PUBLIC_ID ?? 'pk_dev_public_id',
      apiSecret: env.CLOUDPAYMENTS_API_SECRET ?? DEV_CLOUDPAYMENTS_SECRET,
      notifyUrl: `http://127.0.0.1:${env.PORT ?? 3000}/api/provider/payment-success`,
      failNotifyUrl: `http://127.0.0.1:${env.PORT ?? 3000}/api/provider/fail`,
      receiptNotifyUrl: `http://127.0.0.1:${env.PORT ?? 3000}/api/provider/receipt`,
      prices: { 'basic-m': env.BILLING_PRICE_BASIC_M ?? DEFAULT_PRICES.basicMonthly, 'basic-y': env.BILLING_PRICE_BASIC_Y ?? DEFAULT_PRICES.basicYearly },
      currency: env.BILLING_CURRENCY ?? DEFAULT_PRICES.currency,
    });
    return {
      env: { CLOUDPAYMENTS_API_URL: fake.url, CLOUDPAYMENTS_WIDGET_URL: fake.widgetUrl },
      hint: `a payment: curl -X POST ${fake.url}/demo/pay -d '{"accountId":"42","plan":"basic-m"}'`,
      close: () => fake.close(),
    };
  },
};
