/**
 * Error messages in the client's language, through the gateway over the real services: a 422 worded by the
 * gateway's validation in Russian and in English (as the spec writes it), and the plan gate's 403 in Russian, which
 * the list of notifications announces (`active_notifications`).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertsStack, OPENING_RATES, startAlertsStack } from '../support/alerts-stack.js';

let stack: AlertsStack;
const user = () => `lang-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  stack = await startAlertsStack('allang', { tickers: ['SBER'], openingRates: OPENING_RATES.filter((r) => r.ticker === 'SBER') });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('error messages follow Accept-Language', () => {
  it('a 422 in Russian, in English, and in English when no supported language is named', async () => {
    const u = user();
    const post = (lang?: string) =>
      stack.api('POST', '/api/watchlists', { user: u, body: {}, headers: lang ? { 'accept-language': lang } : {} });
    const ru = await post('ru-RU,ru;q=0.9,en;q=0.8');
    expect(ru.status).toBe(422);
    expect(ru.body).toEqual({ message: 'Поле «название» обязательно.', errors: { name: ['Поле «название» обязательно.'] } });
    const en = await post('en-US,en;q=0.9');
    expect(en.status).toBe(422);
    expect(en.body).toEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
    // Node's fetch sends `*`: the API's own English, as before.
    expect((await post()).body.message).toBe('The name field is required.');
  });

  it("a service's 422 (a price target already reached) in Russian", async () => {
    const r = await stack.api('POST', '/api/price-alert', {
      user: user(),
      body: { target_price: 0.5, direction: 'above', assetable: stack.share('SBER') },
      headers: { 'accept-language': 'ru' },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors.target_price[0]).toMatch(/^Цель уже достигнута: для направления «выше» целевая цена должна быть выше текущей \(/);
  });

  it("the plan gate's 403 in Russian, with its code and limit as in English", async () => {
    const u = user();
    const create = (target_price: number, lang: string) =>
      stack.api('POST', '/api/price-alert', { user: u, body: { target_price, assetable: stack.share('SBER') }, headers: { 'accept-language': lang } });
    for (const t of [120, 121, 122]) expect((await create(t, 'ru')).status).toBe(201);
    // The list names the limit before the gate is met.
    expect((await stack.api('GET', '/api/notifications', { user: u })).body.active_notifications).toEqual({ count: 3, limit: 3, paid: false });
    const ru = await create(123, 'ru');
    expect(ru.status).toBe(403);
    expect(ru.body).toEqual({
      message: 'На вашем тарифе можно держать включёнными не больше 3 уведомлений. Выключите одно из них или перейдите на платный тариф.',
      code: 'plan_required',
      limit: { active_notifications: 3, plan: 'free' },
    });
    const en = await create(123, 'en');
    expect(en.body).toEqual({ ...ru.body, message: 'Your plan allows 3 active notifications.' });
  });
});
