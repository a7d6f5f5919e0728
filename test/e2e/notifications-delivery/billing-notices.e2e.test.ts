/**
 * A declined recurring charge told to the user (issue 34, item 4; docs/decisions/0036-billing-notices.md): the
 * provider's Fail notification makes billing publish ChargeFailed; alerts records one notice in the user's inbox
 * (ru and en, by Accept-Language) saying how many attempts remain and until when access is kept, linking to the
 * subscription screen; delivery sends it to the user's Telegram chat like a firing. Exactly one per declined
 * charge: the provider repeating its notification adds nothing. Real gateway, billing, alerts, delivery, Postgres
 * and NATS; the local CloudPayments and Bot API.
 */
import { randomUUID } from 'node:crypto';
import { failNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { type FakeTelegram, startFakeTelegram } from '@invest/delivery/testing/fake-telegram';
import { eventually, metricValue } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CP_SECRET } from '../support/alerts-stack.js';
import { type DeliveryStack, startDeliveryStack } from '../support/delivery-stack.js';

const TOKEN = '777000222:billing-notices-e2e-bot-token';
const SECRET = 'billing-notices-e2e-webhook-secret-0123456789';

let stack: DeliveryStack;
let fake: FakeTelegram;
const chat = 720_000_000 + Math.floor(Math.random() * 1_000_000);

beforeAll(async () => {
  fake = await startFakeTelegram({ token: TOKEN, botUsername: 'e2e_invest_bot' });
  stack = await startDeliveryStack('dlvbill', { tickers: ['SBER'], gateway: { telegramWebhookSecret: SECRET } });
  await stack.restartDelivery({ telegram: { apiUrl: fake.url, botToken: TOKEN, webhookSecret: SECRET, timeoutMs: 3000 }, publicBaseUrl: stack.base, telegramPacing: { perChatMs: 20 } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

/** Links `chat` to `u` as the user would (a link from the API, /start typed in the chat). */
async function linkTelegram(u: string): Promise<void> {
  const res = await stack.api('POST', '/api/notification-channels/telegram/link', { user: u });
  expect(res.status, res.text).toBe(200);
  const token = new URL(res.body.data.url).searchParams.get('start')!;
  expect(await fake.userSays(chat, `/start ${token}`)).toBe(200);
  await eventually(() => Promise.resolve(fake.messages(chat)), (m) => m.some((x) => x.text.startsWith('Готово')), 'the chat linked');
}

const inbox = async (u: string, language: 'ru' | 'en') => {
  const res = await stack.api('GET', '/api/notification-events', { user: u, headers: { 'accept-language': language } });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { id: number; notification_id: number | null; type: string; title: string; body: string; path: string; explanation: unknown; read_at: string | null }[];
};

/** The provider's Fail notification of a declined charge of the provider subscription `subId`. */
async function declined(u: string, subId: string) {
  const payment = stack.provider.addPayment({ AccountId: u, Amount: 299, Currency: 'RUB', SubscriptionId: subId, Status: 'Declined' });
  const send = () => sendSignedNotification(new URL('/api/provider/fail', stack.base).toString(), failNotificationFields(payment), CP_SECRET);
  return { payment, send };
}

/** "1 декабря 2026 г. в 15:00 GMT+3" / "1 December 2026 at 15:00 GMT+3": the grace end as the notice writes it (MARKET_TZ). */
const graceText = (iso: string, locale: string) =>
  new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'Europe/Moscow', timeZoneName: 'short' }).format(new Date(iso));

describe('a declined recurring charge', () => {
  it('one inbox notice per declined charge, in ru and en, with the attempts left and the grace end; one Telegram message', async () => {
    const u = `bn-${randomUUID().slice(0, 8)}`;
    await linkTelegram(u);
    const before = fake.messages(chat).length;
    // The process's metrics (issue 36): compared before and after.
    const notices = () => metricValue('invest_alerts_firings_total', { type: 'charge-failed' });
    const sentOnTelegram = () => metricValue('invest_delivery_outcomes_total', { channel: 'telegram', outcome: 'sent' });
    const counted = { notices: await notices(), sent: await sentOnTelegram() };
    await stack.subscribePaid(u);
    const subId = `sc_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

    // The provider declines the recurring charge and repeats its notification (as it does until it gets {"code":0}).
    const first = await declined(u, subId);
    expect((await first.send()).status).toBe(200);
    expect((await first.send()).status).toBe(200);
    const sub = (await stack.api('GET', '/api/subscription', { user: u })).body.data;
    expect(sub).toMatchObject({ status: 'past_due', attempts_left: 2 });

    const [ru] = await eventually(() => inbox(u, 'ru'), (items) => items.length > 0, 'the notice in the inbox');
    expect(ru).toMatchObject({
      notification_id: null,
      type: 'charge-failed',
      title: 'Не удалось оплатить подписку',
      path: '/subscription',
      explanation: null,
      read_at: null,
    });
    expect(ru!.body).toBe(
      `Списание 299,00\u00a0₽ за подписку не прошло. Осталось попыток списания: 2. Доступ сохраняется до ${graceText(sub.grace_until, 'ru-RU')}. Проверьте карту на странице подписки.`,
    );
    const [en] = await inbox(u, 'en');
    expect(en).toMatchObject({ id: ru!.id, title: 'Subscription payment failed', path: '/subscription' });
    expect(en!.body).toBe(`The subscription charge of RUB\u00a0299.00 was declined. Attempts left: 2. Access is kept until ${graceText(sub.grace_until, 'en-GB')}. Check your card on the subscription page.`);

    // Telegram (the user's language, ru by default), with a button to the subscription screen.
    const [message] = await eventually(() => Promise.resolve(fake.messages(chat).slice(before)), (m) => m.length > 0, 'the Telegram message');
    expect(message!.text).toContain('Не удалось оплатить подписку');
    expect(message!.text).toContain('Осталось попыток списания: 2.');
    expect(message!.buttons.flat().map((b) => b.url)).toContain(`${stack.base}/subscription`);
    // Its delivery is recorded sent: nothing more is on its way for that charge.
    await eventually(
      () => stack.delivery.db.query<{ status: string }>("select d.status from deliveries d join received_firings f on f.group_id = d.group_id where f.firing_id = $1 and d.channel = 'telegram'", [ru!.id]),
      (rows) => rows.length === 1 && rows[0]!.status === 'sent',
      'the delivery sent',
    );

    // The next declined charge is a notice of its own, with one attempt left; the first stays the only one of its charge.
    const second = await declined(u, subId);
    expect((await second.send()).status).toBe(200);
    const items = await eventually(() => inbox(u, 'en'), (i) => i.length > 1, 'the second notice');
    expect(items).toHaveLength(2);
    expect(items[0]!.body).toContain('Attempts left: 1.');
    expect(items[1]!.id).toBe(ru!.id);
    const messages = await eventually(() => Promise.resolve(fake.messages(chat).slice(before)), (m) => m.length > 1, 'the second Telegram message');
    expect(messages).toHaveLength(2);
    expect(messages[1]!.text).toContain('Осталось попыток списания: 1.');
    // Each charge's notice reached delivery once.
    const received = await stack.delivery.db.query<{ n: string }>('select count(*)::text as n from received_firings where user_id = $1', [u]);
    expect(received[0]!.n).toBe('2');
    expect((await stack.alerts.db.query<{ n: string }>("select count(*)::text as n from notification_firings where user_id = $1 and type = 'charge-failed'", [u]))[0]!.n).toBe('2');
    // Counted as they were recorded and sent: the repeated notification added nothing.
    await eventually(notices, (n) => n === counted.notices + 2, 'both notices counted');
    expect(await notices()).toBe(counted.notices + 2);
    await eventually(sentOnTelegram, (n) => n === counted.sent + 2, 'both messages counted sent');
  });
});
