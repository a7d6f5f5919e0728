import { baseConfigSchema, loadConfigOrExit, postgresUrl, type ServiceBaseConfig, serviceBaseConfig } from '@invest/platform/config/load-config';
import { z } from 'zod';
import { toMinorUnits } from '../plans/money.js';
import { DEFAULT_PRICES, type PlanPrices } from '../plans/plan-catalog.js';
import { DEFAULT_RECEIPT, type ReceiptSettings } from '../plans/receipt.js';

const positiveInt = (name: string) => z.coerce.number({ error: `${name} must be a number` }).int(`${name} must be an integer`).positive(`${name} must be > 0`);
const price = (name: string) => z.string().refine((v) => (toMinorUnits(v) ?? 0n) > 0n, `${name} must be a positive amount with at most two decimal places`);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** The development secret: only for local runs and tests; production refuses to start without a real one. */
export const DEV_CLOUDPAYMENTS_SECRET = 'dev_cloudpayments_api_secret';

/** Environment of the billing service; every variable is named when its value is bad. */
export const billingEnvSchema = baseConfigSchema
  .extend({
    DATABASE_URL: postgresUrl.optional(),
    BILLING_DATABASE_URL: postgresUrl.optional(),
    BUS_PREFIX: z.string().default(''),
    CLOUDPAYMENTS_API_URL: z.string().url('CLOUDPAYMENTS_API_URL must be a URL').default('https://api.cloudpayments.ru'),
    CLOUDPAYMENTS_PUBLIC_ID: z.string().min(1).default('pk_dev_public_id'),
    CLOUDPAYMENTS_API_SECRET: z.string().min(8, 'CLOUDPAYMENTS_API_SECRET must be at least 8 characters').optional(),
    CLOUDPAYMENTS_ACCEPT_TEST_PAYMENTS: bool.optional(),
    BILLING_PRICE_BASIC_M: price('BILLING_PRICE_BASIC_M').default(DEFAULT_PRICES.basicMonthly),
    BILLING_PRICE_BASIC_Y: price('BILLING_PRICE_BASIC_Y').default(DEFAULT_PRICES.basicYearly),
    BILLING_CURRENCY: z.string().regex(/^[A-Z]{3}$/, 'BILLING_CURRENCY must be an ISO 4217 code').default(DEFAULT_PRICES.currency),
    BILLING_JOBS_ENABLED: bool.default(true),
    PROVIDER_TIMEOUT_MS: positiveInt('PROVIDER_TIMEOUT_MS').default(10_000),
    PROVIDER_RETRIES: z.coerce.number().int().min(0).default(2),
    PROVIDER_BACKOFF_MS: positiveInt('PROVIDER_BACKOFF_MS').default(300),
    BILLING_RECEIPT_LABEL_BASIC_M: z.string().min(1).max(128).default(DEFAULT_RECEIPT.labels['basic-m']),
    BILLING_RECEIPT_LABEL_BASIC_Y: z.string().min(1).max(128).default(DEFAULT_RECEIPT.labels['basic-y']),
    BILLING_RECEIPT_VAT: z.enum(['none', '0', '10', '20', '110', '120'], { error: 'BILLING_RECEIPT_VAT must be none, 0, 10, 20, 110 or 120' }).default('none'),
    BILLING_RECEIPT_TAXATION_SYSTEM: z.coerce.number().int().min(0, 'BILLING_RECEIPT_TAXATION_SYSTEM must be 0-5').max(5, 'BILLING_RECEIPT_TAXATION_SYSTEM must be 0-5').default(DEFAULT_RECEIPT.taxationSystem),
    BILLING_RECEIPT_DEADLINE_MINUTES: positiveInt('BILLING_RECEIPT_DEADLINE_MINUTES').default(60),
  })
  .refine((e) => e.NODE_ENV !== 'production' || !!e.CLOUDPAYMENTS_API_SECRET, {
    path: ['CLOUDPAYMENTS_API_SECRET'],
    message: 'CLOUDPAYMENTS_API_SECRET is required in production',
  });
export type BillingEnv = z.infer<typeof billingEnvSchema>;

export interface BillingConfig extends ServiceBaseConfig {
  marketTz: string;
  jobsEnabled: boolean;
  prices: PlanPrices;
  cloudPayments: { baseUrl: string; publicId: string; apiSecret: string; acceptTestPayments: boolean; timeoutMs: number; retries: number; backoffMs: number };
  receipt: ReceiptSettings;
  /** A charge with no receipt this long after it was paid is logged as an error and makes /ready fail. */
  receiptDeadlineMs: number;
}

export function billingConfigFrom(env: BillingEnv): BillingConfig {
  return {
    ...serviceBaseConfig('billing', env),
    marketTz: env.MARKET_TZ,
    jobsEnabled: env.BILLING_JOBS_ENABLED,
    prices: { basicMonthly: env.BILLING_PRICE_BASIC_M, basicYearly: env.BILLING_PRICE_BASIC_Y, currency: env.BILLING_CURRENCY },
    cloudPayments: {
      baseUrl: env.CLOUDPAYMENTS_API_URL,
      publicId: env.CLOUDPAYMENTS_PUBLIC_ID,
      apiSecret: env.CLOUDPAYMENTS_API_SECRET ?? DEV_CLOUDPAYMENTS_SECRET,
      acceptTestPayments: env.CLOUDPAYMENTS_ACCEPT_TEST_PAYMENTS ?? env.NODE_ENV !== 'production',
      timeoutMs: env.PROVIDER_TIMEOUT_MS,
      retries: env.PROVIDER_RETRIES,
      backoffMs: env.PROVIDER_BACKOFF_MS,
    },
    receipt: {
      labels: { 'basic-m': env.BILLING_RECEIPT_LABEL_BASIC_M, 'basic-y': env.BILLING_RECEIPT_LABEL_BASIC_Y },
      vat: env.BILLING_RECEIPT_VAT === 'none' ? null : Number(env.BILLING_RECEIPT_VAT),
      taxationSystem: env.BILLING_RECEIPT_TAXATION_SYSTEM,
    },
    receiptDeadlineMs: env.BILLING_RECEIPT_DEADLINE_MINUTES * 60_000,
  };
}

export function loadBillingConfigOrExit(): BillingConfig {
  return billingConfigFrom(loadConfigOrExit(billingEnvSchema, 'billing'));
}
