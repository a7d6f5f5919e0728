import { describe, expect, it } from 'vitest';
import { planCatalog, planForPayment } from './plan-catalog.js';

describe('planForPayment', () => {
  // Prices close together, so the ±10 % bands of both plans hold some amounts.
  const plans = planCatalog({ basicMonthly: '100.00', basicYearly: '105.00', currency: 'RUB' });
  const code = (amount: string, named?: string) => planForPayment(plans, amount, 'RUB', named)?.code;

  it('an exact price is its plan, whatever Data names', () => {
    expect(code('100.00', 'basic-y')).toBe('basic-m');
    expect(code('105.00', 'basic-m')).toBe('basic-y');
  });

  it('within ±10 % of both prices, the plan Data names wins over the nearest', () => {
    expect(code('101.00')).toBe('basic-m');
    expect(code('101.00', 'basic-y')).toBe('basic-y');
    expect(code('104.00', 'basic-m')).toBe('basic-m');
    expect(code('104.00')).toBe('basic-y');
  });

  it('a plan named for an amount outside its band is not that plan', () => {
    // 112 is within 10 % of 105 only: the monthly plan it names does not apply.
    expect(code('112.00', 'basic-m')).toBe('basic-y');
    // Far below both: nothing, however the widget's Data names it.
    for (const amount of ['0.01', '50.00', '89.00']) expect(code(amount, 'basic-y')).toBeUndefined();
    expect(code('0.00', 'basic-m')).toBeUndefined();
  });

  it('another currency matches no plan', () => {
    expect(planForPayment(plans, '100.00', 'USD', 'basic-m')).toBeUndefined();
  });
});
