import { describe, expect, it } from 'vitest';
import { activeLimitText } from './plan-limit';

describe('activeLimitText', () => {
  it('names the free plan limit in Russian and English', () => {
    expect(activeLimitText({ count: 2, limit: 3, paid: false }, 'ru')).toBe('2 из 3 активных уведомлений на бесплатном тарифе.');
    expect(activeLimitText({ count: 2, limit: 3, paid: false }, 'en')).toBe('2 of 3 active alerts on the free plan.');
    expect(activeLimitText({ count: 0, limit: 21, paid: true }, 'ru')).toBe('0 из 21 активного уведомления на вашем тарифе.');
    expect(activeLimitText({ count: 0, limit: 1, paid: false }, 'en')).toBe('0 of 1 active alert on the free plan.');
  });

  it('at the limit, says what to do', () => {
    expect(activeLimitText({ count: 3, limit: 3, paid: false }, 'ru')).toBe(
      '3 из 3 активных уведомлений на бесплатном тарифе. Чтобы включить ещё одно, выключите другое или перейдите на платный тариф.',
    );
    expect(activeLimitText({ count: 3, limit: 3, paid: false }, 'en')).toBe('3 of 3 active alerts on the free plan. To switch on another, switch one off or choose a paid plan.');
  });

  it('says nothing without a limit or without the figure', () => {
    expect(activeLimitText({ count: 7, limit: null, paid: true }, 'ru')).toBeNull();
    expect(activeLimitText(undefined, 'en')).toBeNull();
  });
});
