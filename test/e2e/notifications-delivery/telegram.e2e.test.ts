/**
 * The Telegram channel end to end against the Bot API stand-in: a link from the API and /start typed in the
 * stand-in link a chat (settings say so); the webhook refuses a forged call before reading it; /stop, /mute,
 * /unmute, /status; a fired notification arrives as HTML with its button; a 429's retry_after is obeyed; a
 * blocked bot unlinks the chat. Real gateway, delivery, alerts, Postgres and NATS.
 */
import { randomUUID } from 'node:crypto';
import { createLogger } from '@invest/platform';
import { eventually } from '@invest/platform/testing/index';
import { type FakeSentMessage, type FakeTelegram, startFakeTelegram } from '@invest/delivery/testing/fake-telegram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryStack, startDeliveryStack } from '../support/delivery-stack.js';

const TOKEN = '777000111:telegram-e2e-bot-token';
const SECRET = 'telegram-e2e-webhook-secret-0123456789';

let stack: DeliveryStack;
let fake: FakeTelegram;
/** Every line delivery logs (at debug): none may hold the bot token, which is in the Bot API's URL path. */
const logLines: string[] = [];
let nextChat = 710_000_000 + Math.floor(Math.random() * 1_000_000);

const user = () => `tg-${randomUUID().slice(0, 8)}`;
const settings = async (u: string) => {
  const res = await stack.api('GET', '/api/notification-settings', { user: u });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};
const chatRow = async (u: string) =>
  (await stack.delivery.db.query<{ chat_id: string | null; blocked: boolean; muted_until: string | null }>('select chat_id::text, blocked, muted_until from telegram_chats where user_id = $1', [u]))[0];

/** A fresh link for `u` from the API: its token. */
async function linkToken(u: string): Promise<string> {
  const res = await stack.api('POST', '/api/notification-channels/telegram/link', { user: u });
  expect(res.status, res.text).toBe(200);
  const m = /^https:\/\/t\.me\/e2e_invest_bot\?start=([A-Za-z0-9_-]{32})$/.exec(res.body.data.url);
  expect(m, res.body.data.url).not.toBeNull();
  return m![1]!;
}

/** What the bot sent the chat after its first `after` messages, once it has. */
async function reply(chatId: number, after: number): Promise<FakeSentMessage> {
  const got = await eventually(
    () => Promise.resolve(fake.messages(chatId).slice(after)),
    (m) => m.length > 0,
    `a message to chat ${chatId}`,
  );
  return got[0]!;
}

/** The user of `chatId` types `text`; the webhook takes it; resolves with the bot's answer. */
async function say(chatId: number, text: string): Promise<string> {
  const before = fake.messages(chatId).length;
  expect(await fake.userSays(chatId, text)).toBe(200);
  return (await reply(chatId, before)).text;
}

/** A new user with a linked chat. */
async function linkedUser(): Promise<{ u: string; chat: number }> {
  const u = user();
  const chat = nextChat++;
  expect(await say(chat, `/start ${await linkToken(u)}`)).toMatch(/^Готово/);
  return { u, chat };
}

let rate = 100;
/** A price-target of `u` on SBER that fires now: its firing's id. */
async function fire(u: string): Promise<number> {
  const created = await stack.api('POST', '/api/price-alert', { user: u, body: { target_price: rate + 10, assetable: stack.share('SBER'), name: 'e2e' } });
  expect(created.status, created.text).toBe(201);
  rate += 11;
  await stack.applyRates([{ ticker: 'SBER', rate, change: 11 }]);
  const [firing] = await eventually(
    () => stack.alerts.db.query<{ id: string }>('select id::text from notification_firings where notification_id = $1', [created.body.data.id]),
    (rows) => rows.length === 1,
    'the firing',
  );
  return Number(firing!.id);
}

/** The telegram deliveries of a firing, once its message group is sealed. */
async function telegramDeliveries(firingId: number) {
  await eventually(
    () => stack.delivery.db.query('select 1 from received_firings f join message_groups g on g.id = f.group_id where f.firing_id = $1 and g.sealed_at is not null', [firingId]),
    (rows) => rows.length === 1,
    `the group of firing ${firingId} sealed`,
  );
  return stack.delivery.db.query<{ status: string; attempts: number; next_attempt_at: Date; last_error: string | null; provider_id: string | null }>(
    "select d.status, d.attempts, d.next_attempt_at, d.last_error, d.provider_id from deliveries d join received_firings f on f.group_id = d.group_id where f.firing_id = $1 and d.channel = 'telegram'",
    [firingId],
  );
}

const postWebhook = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${stack.base}/api/provider/telegram`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

beforeAll(async () => {
  fake = await startFakeTelegram({ token: TOKEN, botUsername: 'e2e_invest_bot' });
  stack = await startDeliveryStack('dlvtg', { tickers: ['SBER'], openingRates: [{ ticker: 'SBER', rate, change: 0 }], gateway: { telegramWebhookSecret: SECRET } });
  // The webhook's URL is the gateway's, known once it listens: delivery starts again with the bot.
  await stack.restartDelivery({ telegram: { apiUrl: fake.url, botToken: TOKEN, webhookSecret: SECRET, timeoutMs: 3000 }, publicBaseUrl: stack.base, telegramPacing: { perChatMs: 20 }, logger: createLogger('delivery', 'debug', { write: (line: string) => void logLines.push(line) }) });
  expect(fake.webhook()).toEqual({ url: `${stack.base}/api/provider/telegram`, secretToken: SECRET, allowedUpdates: ['message', 'my_chat_member', 'callback_query'] });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await fake?.close();
});

describe('linking a chat', () => {
  it('a link from the API and /start typed as the user link the chat; settings show it', async () => {
    const u = user();
    const before = Date.now();
    const res = await stack.api('POST', '/api/notification-channels/telegram/link', { user: u });
    expect(res.status, res.text).toBe(200);
    const expiresAt = Date.parse(res.body.data.expires_at);
    expect(expiresAt - before).toBeGreaterThanOrEqual(15 * 60_000 - 1000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    const token = new URL(res.body.data.url).searchParams.get('start')!;
    // Stored hashed: the table alone links nothing.
    const stored = await stack.delivery.db.query<{ token_hash: string }>('select token_hash from telegram_link_tokens where user_id = $1', [u]);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token_hash).not.toContain(token);

    const chat = nextChat++;
    expect(await say(chat, `/start ${token}`)).toMatch(/^Готово: уведомления будут приходить в этот чат/);
    expect(await chatRow(u)).toEqual({ chat_id: String(chat), blocked: false, muted_until: null });
    expect((await settings(u)).telegram).toEqual({ linked: true, blocked: false, muted_until: null });
  });

  it('a link works once, for 15 minutes, and only for a token it made; the reply says which', async () => {
    const { u } = await linkedUser();
    await stack.api('PUT', '/api/notification-settings', { user: u, body: { language: 'en' } });
    const used = (await stack.delivery.db.query<{ n: number }>('select count(*)::int as n from telegram_link_tokens where user_id = $1 and used_at is not null', [u]))[0]!.n;
    expect(used).toBe(1);

    // A new link opened in another chat moves the user there; the same link again is used already (said in
    // the language of the user it was made for).
    const other = nextChat++;
    const again = await linkToken(u);
    expect(await say(other, `/start ${again}`)).toMatch(/^Done: notifications will come to this chat/);
    expect(await say(nextChat++, `/start ${again}`)).toBe('This link has been used already. Get a new one in the notification settings.');

    // Sixteen minutes later a fresh link has expired.
    const late = await linkToken(u);
    stack.deliveryClock.now = new Date(Date.now() + 16 * 60_000);
    try {
      expect(await say(nextChat++, `/start ${late}`)).toBe('This link has expired (it is valid for 15 minutes). Get a new one in the notification settings.');
    } finally {
      stack.deliveryClock.now = null;
    }
    expect(await say(nextChat++, '/start not-a-token-we-made')).toBe('Ссылка не подходит. Получите новую в настройках уведомлений.');
    // The user's chat is the last one linked.
    expect((await chatRow(u))!.chat_id).toBe(String(other));
  });

  it('answers a link with 401 without a token, and links nothing for a user', async () => {
    const res = await stack.api('POST', '/api/notification-channels/telegram/link');
    expect(res.status).toBe(401);
  });
});

describe('the webhook', () => {
  it('refuses a call without the secret header, or with a wrong one, with 401 before reading it, and handles nothing', async () => {
    const u = user();
    const token = await linkToken(u);
    const chat = nextChat++;
    const updateId = 990_000_000 + Math.floor(Math.random() * 1_000_000);
    const update = JSON.stringify({ update_id: updateId, message: { message_id: 1, date: 1, chat: { id: chat, type: 'private' }, from: { id: chat, is_bot: false, first_name: 'Eve' }, text: `/start ${token}` } });
    const forged: Record<string, string>[] = [{}, { 'x-telegram-bot-api-secret-token': 'wrong-secret-0123456789' }, { 'x-telegram-bot-api-secret-token': `${SECRET}x` }, { 'x-telegram-bot-api-secret-token': SECRET.slice(0, -1) }];
    for (const headers of forged) {
      const res = await postWebhook(update, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ message: 'Invalid secret token.' });
    }
    // Not even a body that is not JSON is looked at before the secret.
    expect((await postWebhook('{not json', { 'x-telegram-bot-api-secret-token': 'wrong-secret-0123456789' })).status).toBe(401);
    expect((await postWebhook('{not json', { 'x-telegram-bot-api-secret-token': SECRET })).status).toBe(400);
    expect(await stack.delivery.db.query('select 1 from telegram_updates where update_id = $1', [updateId])).toEqual([]);
    expect(await chatRow(u)).toBeUndefined();
    expect(await stack.delivery.db.query('select 1 from telegram_link_tokens where user_id = $1 and used_at is not null', [u])).toEqual([]);

    // The same update with the secret: handled.
    const ok = await postWebhook(update, { 'x-telegram-bot-api-secret-token': SECRET });
    expect(ok.status).toBe(200);
    expect((await chatRow(u))!.chat_id).toBe(String(chat));
  });

  it('handles an update Telegram delivers twice once', async () => {
    const { chat } = await linkedUser();
    const before = fake.messages(chat).length;
    const update = { update_id: 980_000_000 + Math.floor(Math.random() * 1_000_000), message: { message_id: 5, date: 1, chat: { id: chat, type: 'private' }, text: '/status' } };
    expect(await fake.sendUpdate(update)).toBe(200);
    expect(await fake.sendUpdate(update)).toBe(200);
    await reply(chat, before);
    // A third command's answer comes after the first's: the repeat made none in between.
    expect(await say(chat, '/unmute')).toBe('Уведомления снова приходят в этот чат.');
    expect(fake.messages(chat).slice(before).map((m) => m.text.split('\n')[0])).toEqual(['Чат подключён.', 'Уведомления снова приходят в этот чат.']);
  });
});

describe('commands', () => {
  it('/status says what is linked and on, in the user language', async () => {
    const { u, chat } = await linkedUser();
    await stack.api('PUT', '/api/notification-settings', { user: u, body: { language: 'en', channels: { push: false }, quiet_hours: { start: '23:00', end: '07:00' }, email: 'tg-status@example.org' } });
    expect(await say(chat, '/status')).toBe(
      ['This chat is linked.', 'Telegram: on', 'In-app: on', 'Web Push: off, devices: 0', 'E-mail: on, tg-status@example.org (not confirmed)', 'Quiet hours: 23:00–07:00 (Europe/Moscow)'].join('\n'),
    );
    expect(await say(nextChat++, '/status')).toBe('Этот чат не подключён. Откройте ссылку «Подключить Telegram» в настройках уведомлений.');
  });

  it('/mute 1h and /mute today mute until then (today: the end of the day in the user time zone); /unmute ends it', async () => {
    const { u, chat } = await linkedUser();
    await stack.api('PUT', '/api/notification-settings', { user: u, body: { time_zone: 'Asia/Vladivostok' } });
    const before = Date.now();
    expect(await say(chat, '/mute 1h')).toMatch(/^Тишина до \d+ \S+ в \d\d:\d\d\. \/unmute — присылать снова\.$/);
    const hour = new Date((await chatRow(u))!.muted_until!).getTime();
    expect(hour - before).toBeGreaterThanOrEqual(60 * 60_000);
    expect(hour - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    expect((await settings(u)).telegram).toEqual({ linked: true, blocked: false, muted_until: new Date(hour).toISOString() });

    // 20:30 UTC is 06:30 the next morning in Vladivostok (UTC+10): that day ends at 14:00 UTC.
    stack.deliveryClock.now = new Date('2026-06-01T20:30:00Z');
    try {
      expect(await say(chat, '/mute today')).toBe('Тишина до 3 июня в 00:00. /unmute — присылать снова.');
    } finally {
      stack.deliveryClock.now = null;
    }
    expect(new Date((await chatRow(u))!.muted_until!)).toEqual(new Date('2026-06-02T14:00:00Z'));
    expect(await say(chat, '/mute 2h')).toBe('Напишите /mute 1h (на час) или /mute today (до конца дня).');
    expect(await say(chat, '/unmute')).toBe('Уведомления снова приходят в этот чат.');
    expect((await chatRow(u))!.muted_until).toBeNull();
  });

  it('/stop unlinks the chat; commands then say it is not linked', async () => {
    const { u, chat } = await linkedUser();
    expect(await say(chat, '/stop')).toBe('Чат отключён: уведомления сюда больше не придут. Подключить снова можно в настройках уведомлений.');
    expect(await chatRow(u)).toEqual({ chat_id: null, blocked: false, muted_until: null });
    expect((await settings(u)).telegram).toEqual({ linked: false, blocked: false, muted_until: null });
    expect(await say(chat, '/mute 1h')).toMatch(/^Этот чат не подключён/);
    expect(await say(chat, '/stop')).toMatch(/^Этот чат не подключён/);
  });

  it('blocking the bot (my_chat_member: kicked) unlinks the chat and marks it blocked', async () => {
    const { u, chat } = await linkedUser();
    expect(await fake.sendUpdate({ my_chat_member: { chat: { id: chat, type: 'private' }, from: { id: chat, is_bot: false }, date: 1, old_chat_member: { status: 'member' }, new_chat_member: { status: 'kicked' } } })).toBe(200);
    expect((await settings(u)).telegram).toEqual({ linked: false, blocked: true, muted_until: null });
  });
});

describe('messages', () => {
  const sender = () => stack.delivery.senders.find((s) => s.channel === 'telegram')!;

  it('are HTML with everything from the notification escaped, and a button that opens its page', async () => {
    const { chat } = await linkedUser();
    const url = `${stack.base}/notifications`;
    const result = await sender().send(String(chat), {
      userId: 'u',
      language: 'en',
      title: 'SBER <b>&amp; "Co"',
      lines: ['a < b > c & d', '</b><i>'],
      url,
      digest: false,
      firings: [],
    });
    expect(result.outcome).toBe('sent');
    const got = fake.messages(chat).at(-1)!;
    expect(got.parse_mode).toBe('HTML');
    // What the user sees is the text as written: the stand-in parsed the markup as Telegram does.
    expect(got.text).toBe('SBER <b>&amp; "Co"\n\na < b > c & d\n</b><i>');
    expect(got.tags).toEqual(['b']);
    expect(got.buttons).toEqual([[{ text: 'Open', url }]]);
  });

  it('a fired notification reaches the linked chat, once, with its button', async () => {
    const { u, chat } = await linkedUser();
    const before = fake.messages(chat).length;
    const firing = await fire(u);
    const got = await reply(chat, before);
    const inbox = await stack.api('GET', '/api/notification-events', { user: u });
    const { title, body } = inbox.body.data[0];
    expect(title).toBe(`SBER: цена ${rate}`);
    expect(got.text).toBe(`${title}\n\n${body}`);
    expect(got.tags).toEqual(['b']);
    expect(got.buttons).toEqual([[{ text: 'Открыть', url: `${stack.base}/notifications` }]]);
    const [d] = await eventually(() => telegramDeliveries(firing), (rows) => rows[0]?.status === 'sent', 'the delivery recorded');
    expect(d!.provider_id).toBe(String(got.message_id));
    expect(fake.messages(chat).slice(before)).toHaveLength(1);
  });

  it('a muted chat gets nothing while the mute lasts', async () => {
    const { u, chat } = await linkedUser();
    await say(chat, '/mute 1h');
    const before = fake.messages(chat).length;
    expect(await telegramDeliveries(await fire(u))).toEqual([]);
    expect(fake.messages(chat)).toHaveLength(before);
  });

  it("a 429's retry_after is obeyed: the next try comes no sooner", async () => {
    const { u, chat } = await linkedUser();
    const before = fake.messages(chat).length;
    fake.throttleNext(1, 2, chat);
    const firing = await fire(u);
    const got = await reply(chat, before);
    const tries = fake.calls.filter((c) => c.method === 'sendMessage' && c.params.chat_id === chat && c.at <= got.at);
    const throttled = tries.find((c) => c.status === 429)!;
    expect(throttled).toBeDefined();
    expect(got.at - throttled.at).toBeGreaterThanOrEqual(2000);
    const [d] = await eventually(() => telegramDeliveries(firing), (rows) => rows[0]?.status === 'sent', 'the delivery recorded');
    expect(d!.attempts).toBe(2);
  });

  it('a bot blocked by the user unlinks the chat; settings say so and show the failure', async () => {
    const { u, chat } = await linkedUser();
    fake.block(chat);
    const firing = await fire(u);
    const [d] = await eventually(() => telegramDeliveries(firing), (rows) => rows[0]?.status === 'failed', 'the delivery failed');
    expect(d!.last_error).toBe('telegram sendMessage: 403 Forbidden: bot was blocked by the user');
    expect(await chatRow(u)).toEqual({ chat_id: null, blocked: true, muted_until: null });
    const view = await settings(u);
    expect(view.telegram).toEqual({ linked: false, blocked: true, muted_until: null });
    expect(view.last_failures).toEqual([{ channel: 'telegram', at: expect.any(String), reason: 'telegram sendMessage: 403 Forbidden: bot was blocked by the user' }]);

    // Unblocked and linked again with a new link: messages come again.
    fake.block(chat, false);
    expect(await say(chat, `/start ${await linkToken(u)}`)).toMatch(/^Готово/);
    expect((await settings(u)).telegram).toEqual({ linked: true, blocked: false, muted_until: null });
  });
});

describe('logs', () => {
  it('never hold the bot token, through every call above (429, 403, chat not found)', () => {
    expect(logLines.join('\n')).toContain('403 Forbidden: bot was blocked by the user');
    expect(logLines.filter((l) => l.includes(TOKEN.split(':')[1]!))).toEqual([]);
  });
});
