import type { ChargeFailedV1 } from '@invest/contracts';
import { describe, expect, it } from 'vitest';
import { chargeFailedNotice } from './charge-failed-notice.js';

const failed = (over: Partial<ChargeFailedV1> = {}): ChargeFailedV1 => ({
  version: 1,
  userId: 'u1',
  paymentId: '9001',
  amount: '299.00',
  currency: 'RUB',
  planCode: 'basic-m',
  subscriptionId: '3f0c8a9e-7a57-4a55-9c1b-1c2d3e4f5a6b',
  reason: 'InsufficientFunds',
  attempt: 1,
  attemptsLeft: 2,
  graceUntil: '2026-12-01T12:00:05.000Z',
  at: '2026-11-28T12:00:05.000Z',
  ...over,
});

describe('chargeFailedNotice', () => {
  it('says the charge failed, the attempts left and the grace end, in ru and en, linking to the subscription', () => {
    const n = chargeFailedNotice(failed(), 'Europe/Moscow')!;
    expect(n).toMatchObject({ userId: 'u1', type: 'charge-failed', stepKey: 'charge-failed:9001', path: '/subscription' });
    expect(n.texts.ru).toEqual({
      title: 'Не удалось оплатить подписку',
      body: 'Списание 299,00\u00a0₽ за подписку не прошло. Осталось попыток списания: 2. Доступ сохраняется до 1 декабря 2026 г. в 15:00 GMT+3. Проверьте карту на странице подписки.',
    });
    expect(n.texts.en).toEqual({
      title: 'Subscription payment failed',
      body: 'The subscription charge of RUB\u00a0299.00 was declined. Attempts left: 2. Access is kept until 1 December 2026 at 15:00 GMT+3. Check your card on the subscription page.',
    });
  });

  it('the last failure: no more attempts, pay again', () => {
    const n = chargeFailedNotice(failed({ attempt: 3, attemptsLeft: 0 }), 'Europe/Moscow')!;
    expect(n.texts.ru.body).toContain('Попыток списания больше не будет. Доступ сохраняется до 1 декабря 2026 г. в 15:00 GMT+3. Оплатите подписку заново');
    expect(n.texts.en.body).toContain('No more attempts will be made. Access is kept until 1 December 2026 at 15:00 GMT+3. Pay for the subscription again');
  });

  it('nothing for a declined first payment (no subscription)', () => {
    expect(chargeFailedNotice(failed({ subscriptionId: null, attempt: 0, attemptsLeft: 0, graceUntil: null }), 'Europe/Moscow')).toBeNull();
  });
});
