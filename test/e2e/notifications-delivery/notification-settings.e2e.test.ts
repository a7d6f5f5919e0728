/**
 * GET and PUT /api/notification-settings through the gateway and the delivery service: defaults, partial
 * changes, what the channel tables say, validation (422 before anything changes) and isolation between users.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryStack, startDeliveryStack } from '../support/delivery-stack.js';

let stack: DeliveryStack;
const user = () => `settings-${randomUUID().slice(0, 8)}`;
const get = async (u: string) => {
  const res = await stack.api('GET', '/api/notification-settings', { user: u });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};
const put = (u: string, body: unknown) => stack.api('PUT', '/api/notification-settings', { user: u, body });

const DEFAULTS = {
  channels: { in_app: true, telegram: true, push: true, email: true },
  quiet_hours: null,
  time_zone: 'Europe/Moscow',
  language: 'ru',
  telegram: { linked: false, blocked: false, muted_until: null },
  email: { address: null, confirmed: false },
  push: { devices: 0 },
  last_failures: [],
};

beforeAll(async () => {
  stack = await startDeliveryStack('dlvset', { tickers: ['SBER'] });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

describe('notification settings', () => {
  it('a user who never saved settings gets the defaults; a PUT changes only what it names', async () => {
    const u = user();
    expect(await get(u)).toEqual(DEFAULTS);

    const first = await put(u, { channels: { telegram: false }, quiet_hours: { start: '23:00', end: '07:00' }, time_zone: 'Asia/Yekaterinburg' });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toEqual({
      ...DEFAULTS,
      channels: { ...DEFAULTS.channels, telegram: false },
      quiet_hours: { start: '23:00', end: '07:00' },
      time_zone: 'Asia/Yekaterinburg',
    });

    const second = await put(u, { language: 'en', channels: { email: false } });
    expect(second.status, second.text).toBe(200);
    expect(await get(u)).toEqual({
      ...DEFAULTS,
      channels: { in_app: true, telegram: false, push: true, email: false },
      quiet_hours: { start: '23:00', end: '07:00' },
      time_zone: 'Asia/Yekaterinburg',
      language: 'en',
    });

    const cleared = await put(u, { quiet_hours: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.quiet_hours).toBeNull();
    expect(cleared.body.data.time_zone).toBe('Asia/Yekaterinburg');
  });

  it('another user never sees or changes mine', async () => {
    const me = user();
    const other = user();
    expect((await put(me, { channels: { push: false }, language: 'en', email: 'me@example.com' })).status).toBe(200);
    // The other user sees their own (default) settings, not mine.
    expect(await get(other)).toEqual(DEFAULTS);
    // Their PUT changes theirs only; a user id in the body is not a field (422), so it cannot name me.
    expect((await put(other, { channels: { push: true, telegram: false }, language: 'ru', email: null })).status).toBe(200);
    const named = await put(other, { user_id: me, language: 'ru' });
    expect(named.status).toBe(422);
    const mine = await get(me);
    expect(mine.channels).toEqual({ ...DEFAULTS.channels, push: false });
    expect(mine.language).toBe('en');
    expect(mine.email).toEqual({ address: 'me@example.com', confirmed: false });
    expect((await get(other)).channels).toEqual({ ...DEFAULTS.channels, telegram: false });
  });

  it('without a token: 401', async () => {
    expect((await stack.api('GET', '/api/notification-settings')).status).toBe(401);
    expect((await stack.api('PUT', '/api/notification-settings', { body: { language: 'en' } })).status).toBe(401);
  });

  it.each([
    ['an unknown time zone', { time_zone: 'Mars/Olympus_Mons' }, 'time_zone'],
    ['an empty time zone', { time_zone: '' }, 'time_zone'],
    ['quiet hours past 23:59', { quiet_hours: { start: '24:00', end: '07:00' } }, 'quiet_hours.start'],
    ['quiet hours without minutes', { quiet_hours: { start: '23', end: '07:00' } }, 'quiet_hours.start'],
    ['quiet hours without an end', { quiet_hours: { start: '23:00' } }, 'quiet_hours.end'],
    ['quiet hours that start when they end', { quiet_hours: { start: '07:00', end: '07:00' } }, 'quiet_hours'],
    ['a language not offered', { language: 'de' }, 'language'],
    ['an unknown channel', { channels: { sms: true } }, 'channels.sms'],
    ['a channel set to a string', { channels: { telegram: 'yes' } }, 'channels.telegram'],
    ['a malformed e-mail address', { email: 'not an address' }, 'email'],
  ])('%s is a 422 naming the field, and nothing changes', async (_what, body, field) => {
    const u = user();
    expect((await put(u, { language: 'en', time_zone: 'Europe/Berlin', quiet_hours: { start: '22:00', end: '06:00' } })).status).toBe(200);
    // With a valid change beside it, which must not be saved either.
    const res = await put(u, { channels: { push: false }, ...body });
    expect(res.status, res.text).toBe(422);
    expect(Object.keys(res.body.errors), res.text).toContain(field);
    // A sentence naming what is wrong, as the gateway's other 422s.
    expect(res.body.errors[field][0], res.text).toMatch(/^The .+\.$/);
    const after = await get(u);
    expect(after.language).toBe('en');
    expect(after.time_zone).toBe('Europe/Berlin');
    expect(after.quiet_hours).toEqual({ start: '22:00', end: '06:00' });
    expect(after.channels.push).toBe(true);
  });

  it('a new e-mail address is unconfirmed with a new unsubscribe token; the same address again keeps its confirmation; null removes it', async () => {
    const u = user();
    expect((await put(u, { email: 'Investor@Example.com' })).body.data.email).toEqual({ address: 'Investor@Example.com', confirmed: false });
    const [first] = await stack.delivery.db.query<{ unsubscribe_token: string }>('select unsubscribe_token from email_addresses where user_id = $1', [u]);
    expect(first!.unsubscribe_token.length).toBeGreaterThanOrEqual(32);
    // Confirmed by its link (the e-mail channel's route).
    await stack.delivery.db.query('update email_addresses set confirmed_at = now() where user_id = $1', [u]);
    expect((await put(u, { email: 'investor@example.com' })).body.data.email).toEqual({ address: 'Investor@Example.com', confirmed: true });

    const other = await put(u, { email: 'other@example.com' });
    expect(other.body.data.email).toEqual({ address: 'other@example.com', confirmed: false });
    const [second] = await stack.delivery.db.query<{ unsubscribe_token: string; confirm_sent_at: Date | null }>('select unsubscribe_token, confirm_sent_at from email_addresses where user_id = $1', [u]);
    expect(second!.unsubscribe_token).not.toBe(first!.unsubscribe_token);
    expect(second!.confirm_sent_at).toBeNull();

    // Refused by the mail server: entered again, it is confirmed again (the e-mail channel sends a new link).
    await stack.delivery.db.query('update email_addresses set confirmed_at = now(), bounced_at = now() where user_id = $1', [u]);
    expect((await put(u, { email: 'other@example.com' })).body.data.email).toEqual({ address: 'other@example.com', confirmed: false });

    expect((await put(u, { email: null })).body.data.email).toEqual({ address: null, confirmed: false });
    expect(await stack.delivery.db.query('select 1 from email_addresses where user_id = $1', [u])).toEqual([]);
  });

  it('shows what the channels know: a linked or blocked chat, push devices, the last permanent failure per channel', async () => {
    const u = user();
    const db = stack.delivery.db;
    const muted = new Date(Date.now() + 3_600_000);
    await db.query('insert into telegram_chats (user_id, chat_id, username, linked_at, muted_until) values ($1, $2, $3, now(), $4)', [u, Math.floor(Math.random() * 1e12), 'investor', muted]);
    await db.query("insert into push_subscriptions (user_id, endpoint, p256dh, auth) values ($1, $2, 'k', 'a'), ($1, $3, 'k', 'a')", [u, `https://push.example/${u}/1`, `https://push.example/${u}/2`]);
    await db.query("insert into delivery_failures (user_id, channel, at, reason) values ($1, 'email', now() - interval '1 hour', '550 mailbox unavailable'), ($1, 'push', now(), '410 Gone')", [u]);
    const view = await get(u);
    expect(view.telegram).toEqual({ linked: true, blocked: false, muted_until: muted.toISOString() });
    expect(view.push).toEqual({ devices: 2 });
    expect(view.last_failures.map((f: { channel: string; reason: string }) => [f.channel, f.reason])).toEqual([
      ['push', '410 Gone'],
      ['email', '550 mailbox unavailable'],
    ]);

    // The bot blocked: the chat is unlinked and the screen says so.
    await db.query('update telegram_chats set chat_id = null, blocked = true where user_id = $1', [u]);
    expect((await get(u)).telegram).toEqual({ linked: false, blocked: true, muted_until: muted.toISOString() });
    // Nobody else sees any of it.
    expect(await get(user())).toEqual(DEFAULTS);
  });
});
