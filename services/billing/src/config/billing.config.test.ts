import { describe, expect, it } from 'vitest';
import { billingConfigFrom, billingEnvSchema } from './billing.config.js';

describe('billing config', () => {
  const SECRET = 'a_real_secret_0123';

  it('production refuses test payments unless told otherwise; development accepts them', () => {
    const of = (env: Record<string, string>) => billingConfigFrom(billingEnvSchema.parse({ CLOUDPAYMENTS_API_SECRET: SECRET, ...env })).cloudPayments.acceptTestPayments;
    expect(of({ NODE_ENV: 'production' })).toBe(false);
    expect(of({ NODE_ENV: 'production', CLOUDPAYMENTS_ACCEPT_TEST_PAYMENTS: 'true' })).toBe(true);
    expect(of({ NODE_ENV: 'development' })).toBe(true);
  });

  it('a price is a positive amount with at most two places, named when it is not', () => {
    expect(billingEnvSchema.safeParse({ BILLING_PRICE_BASIC_M: '299' }).success).toBe(true);
    for (const bad of ['0', '-1', '299.001', '2e3', 'abc']) {
      const r = billingEnvSchema.safeParse({ BILLING_PRICE_BASIC_M: bad });
      expect(r.success, bad).toBe(false);
      expect(r.error?.issues[0]?.message, bad).toMatch(/BILLING_PRICE_BASIC_M must be a positive amount/);
    }
  });
});

describe('billing receipt config', () => {
  it('the receipt line, VAT and taxation system come from the environment, with demo defaults', () => {
    const of = (env: Record<string, string>) => billingConfigFrom(billingEnvSchema.parse(env));
    expect(of({})).toMatchObject({ receipt: { labels: { 'basic-m': 'Подписка Basic, 1 месяц' }, vat: null, taxationSystem: 1 }, receiptDeadlineMs: 3_600_000 });
    expect(of({ BILLING_RECEIPT_LABEL_BASIC_Y: 'Год', BILLING_RECEIPT_VAT: '20', BILLING_RECEIPT_TAXATION_SYSTEM: '0', BILLING_RECEIPT_DEADLINE_MINUTES: '90' })).toMatchObject({
      receipt: { labels: { 'basic-y': 'Год' }, vat: 20, taxationSystem: 0 },
      receiptDeadlineMs: 5_400_000,
    });
    expect(billingEnvSchema.safeParse({ BILLING_RECEIPT_VAT: '18' }).error?.issues[0]?.message).toMatch(/BILLING_RECEIPT_VAT must be/);
    expect(billingEnvSchema.safeParse({ BILLING_RECEIPT_TAXATION_SYSTEM: '6' }).success).toBe(false);
  });
});
