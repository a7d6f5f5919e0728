/**
 * The local CloudPayments for a manual demo: `node services/billing/dist/testing/fake-cloudpayments.main.js`.
 * Listens on FAKE_CLOUDPAYMENTS_PORT (default 4020); `/demo/pay` notifies GATEWAY_URL's webhook.
 */
import { DEFAULT_PRICES } from '../plans/plan-catalog.js';
import { DEV_CLOUDPAYMENTS_SECRET } from '../config/billing.config.js';
import { startFakeCloudPayments } from './fake-cloudpayments.js';

const gateway = process.env.GATEWAY_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const fake = await startFakeCloudPayments(
  {
    publicId: process.env.CLOUDPAYMENTS_PUBLIC_ID ?? 'pk_dev_public_id',
    apiSecret: process.env.CLOUDPAYMENTS_API_SECRET ?? DEV_CLOUDPAYMENTS_SECRET,
    notifyUrl: `${gateway}/api/provider/payment-success`,
    failNotifyUrl: `${gateway}/api/provider/fail`,
    receiptNotifyUrl: `${gateway}/api/provider/receipt`,
    prices: { 'basic-m': process.env.BILLING_PRICE_BASIC_M ?? DEFAULT_PRICES.basicMonthly, 'basic-y': process.env.BILLING_PRICE_BASIC_Y ?? DEFAULT_PRICES.basicYearly },
    currency: process.env.BILLING_CURRENCY ?? DEFAULT_PRICES.currency,
  },
  Number(process.env.FAKE_CLOUDPAYMENTS_PORT ?? 4020),
);
process.stdout.write(`fake CloudPayments at ${fake.url} (CLOUDPAYMENTS_API_URL=${fake.url}); POST ${fake.url}/demo/pay {"accountId":"42","plan":"basic-m"}\n`);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
