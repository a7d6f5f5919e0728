import { describe, expect, it } from 'vitest';
import { planCatalog } from './plan-catalog.js';
import { customerReceipt } from './receipt.js';

const [monthly, , free] = planCatalog({ basicMonthly: '299.90', basicYearly: '2990.00', currency: 'RUB' });

describe('customerReceipt', () => {
  it("one line at the plan's price, with the configured label, VAT and taxation system", () => {
    expect(customerReceipt(monthly!, { labels: { 'basic-m': 'Месяц' }, vat: 20, taxationSystem: 0 })).toEqual({
      Items: [{ label: 'Месяц', price: 299.9, quantity: 1, amount: 299.9, vat: 20, method: 4, object: 4 }],
      taxationSystem: 0,
      email: '',
      phone: '',
    });
  });

  it("a charge of another sum (a change of plan less its credit) is the line's price and amount; a free plan has none", () => {
    expect(customerReceipt(monthly!, undefined, '123.45')?.Items).toEqual([expect.objectContaining({ label: 'Подписка Basic, 1 месяц', price: 123.45, amount: 123.45, vat: null })]);
    expect(customerReceipt(free!)).toBeNull();
  });
});
