import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_TELEGRAM_BOT_TOKEN, demoProviders } from './demo-providers.js';
import { type FakeTelegram, parseTelegramHtml, startFakeTelegram } from './fake-telegram.js';

const TOKEN = '5150:fake-telegram-test-token';

/** A webhook that records what it is sent and answers `status`. */
async function startWebhook() {
  const got: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body: JSON.parse(body) as Record<string, unknown> });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    answer: (s: number) => void (status = s),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const api = (fake: FakeTelegram, method: string, params: unknown, token = TOKEN) =>
  fetch(`${fake.url}/bot${token}/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) }).then(async (r) => ({
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    body: (await r.json()) as { ok: boolean; result?: unknown; error_code?: number; description?: string; parameters?: { retry_after?: number } },
  }));

describe('the Bot API stand-in', () => {
  let fake: FakeTelegram;
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  beforeAll(async () => {
    fake = await startFakeTelegram({ token: TOKEN, botUsername: 'stand_in_bot' });
    hook = await startWebhook();
  });
  afterAll(async () => {
    await fake.close();
    await hook.close();
  });

  it('speaks the envelope: ok/result, or ok:false with error_code as the HTTP status, and Retry-After on a 429', async () => {
    expect(await api(fake, 'getMe', {})).toMatchObject({ status: 200, body: { ok: true, result: { is_bot: true, username: 'stand_in_bot' } } });
    // Method names in any case, parameters in the query string too.
    expect((await fetch(`${fake.url}/bot${TOKEN}/GETME?x=1`)).status).toBe(200);
    expect(await api(fake, 'getMe', {}, '5150:other')).toMatchObject({ status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } });
    expect(await api(fake, 'getUpdatesNot', {})).toMatchObject({ status: 404, body: { error_code: 404, description: 'Not Found: method not found' } });
    await fake.userSays(42, 'hi');
    fake.throttleNext(1, 3);
    expect(await api(fake, 'sendMessage', { chat_id: 42, text: 'x' })).toEqual({
      status: 429,
      retryAfter: '3',
      body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } },
    });
    expect(await api(fake, 'sendMessage', { chat_id: 43, text: 'x' })).toMatchObject({ status: 400, body: { description: 'Bad Request: chat not found' } });
    fake.block(42);
    expect(await api(fake, 'sendMessage', { chat_id: 42, text: 'x' })).toMatchObject({ status: 403, body: { description: 'Forbidden: bot was blocked by the user' } });
    fake.block(42, false);
    // A form body, reply_markup as a JSON string in it (as form clients send it).
    const form = new URLSearchParams({ chat_id: '42', text: 'form', reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'Go', url: 'https://e.example' }]] }) });
    const res = await fetch(`${fake.url}/bot${TOKEN}/sendMessage`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect(fake.messages(42).at(-1)).toMatchObject({ text: 'form', buttons: [[{ text: 'Go', url: 'https://e.example' }]] });
  });

  it('parses HTML parse mode as strictly as the reference: only its tags and its four named entities', () => {
    expect(parseTelegramHtml('<b>A &amp; B</b> &lt;i&gt; &#169; &quot;')).toEqual({ text: 'A & B <i> © "', tags: ['b'] });
    for (const bad of ['a < b', 'a & b', '<script>x</script>', '<b>x', 'x</b>', '&nbsp;', 'a > b']) expect(() => parseTelegramHtml(bad), bad).toThrow(/can't parse entities/);
  });

  it('posts what a user types to the webhook as an Update with the secret header, in order', async () => {
    expect(await api(fake, 'setWebhook', { url: hook.url, secret_token: 'Secret_token-1', allowed_updates: ['message'] })).toMatchObject({ body: { ok: true, result: true, description: 'Webhook was set' } });
    expect(await fake.userSays(7, '/start abc', { username: 'anna', language_code: 'en' })).toBe(200);
    // What was typed before any webhook was set comes first (kept pending, as Telegram keeps it).
    const [pending, first] = hook.got.splice(0);
    expect((pending!.body.message as { text: string }).text).toBe('hi');
    expect(first!.headers['x-telegram-bot-api-secret-token']).toBe('Secret_token-1');
    expect(first!.headers['content-type']).toBe('application/json');
    expect(first!.body).toEqual({
      update_id: expect.any(Number),
      message: {
        message_id: expect.any(Number),
        from: { id: 7, is_bot: false, first_name: 'User 7', username: 'anna', language_code: 'en' },
        chat: { id: 7, type: 'private', first_name: 'User 7', username: 'anna' },
        date: expect.any(Number),
        text: '/start abc',
        entities: [{ type: 'bot_command', offset: 0, length: 6 }],
      },
    });

    // A failing webhook keeps the update pending; the next delivery sends it first, then the new one.
    hook.answer(500);
    expect(await fake.userSays(7, 'one')).toBe(500);
    expect(await api(fake, 'getWebhookInfo', {})).toMatchObject({ body: { result: { url: hook.url, pending_update_count: 1, last_error_message: 'Wrong response from the webhook: 500' } } });
    hook.answer(200);
    expect(await fake.userSays(7, 'two')).toBe(200);
    expect(hook.got.slice(-2).map((g) => (g.body.message as { text: string }).text)).toEqual(['one', 'two']);
    const ids = hook.got.slice(-2).map((g) => g.body.update_id as number);
    expect(ids[1]).toBe(ids[0]! + 1);
    expect(await api(fake, 'deleteWebhook', {})).toMatchObject({ body: { ok: true, result: true } });
  });

  it('has a page showing each chat, escaped, and a form that writes as the user', async () => {
    await api(fake, 'setWebhook', { url: hook.url, secret_token: 'Secret_token-1' });
    await fake.userSays(99, 'hello');
    await api(fake, 'sendMessage', { chat_id: 99, text: '<b>1 &lt; 2</b> <script>', parse_mode: 'HTML' }).then((r) => expect(r.status).toBe(400));
    await api(fake, 'sendMessage', { chat_id: 99, text: '<b>1 &lt; 2</b> &lt;script&gt;', parse_mode: 'HTML', reply_markup: { inline_keyboard: [[{ text: 'Open', url: 'https://e.example/n?a=1&b=2' }]] } });
    const page = await (await fetch(fake.pageUrl)).text();
    expect(page).toContain('Chat 99');
    expect(page).toContain('1 &lt; 2 &lt;script&gt;');
    expect(page).not.toContain('<script>alert');
    expect(page).toContain('href="https://e.example/n?a=1&amp;b=2"');

    const before = hook.got.length;
    // The form as a browser posts it; a whole t.me link is what pressing Start sends.
    const res = await fetch(`${fake.url}/demo/say`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ chat_id: '99', username: 'bob', language_code: 'ru', text: 'https://t.me/stand_in_bot?start=tok_EN-1' }),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(hook.got.slice(before).map((g) => (g.body.message as { text: string; from: { username: string } })).map((m) => [m.text, m.from.username])).toEqual([['/start tok_EN-1', 'bob']]);
  });
});

describe('the Telegram stand-in of npm start', () => {
  it('fills the three variables with a local Bot API that takes the token, unless a real bot is configured', async () => {
    const saved = { ...process.env };
    for (const v of ['TELEGRAM_API_URL', 'TELEGRAM_BOT_TOKEN', 'TELEGRAM_WEBHOOK_SECRET']) delete process.env[v];
    // Only the Telegram stand-in: the other channels' variables are set.
    process.env.WEB_PUSH_TEST_CA = 'set';
    process.env.SMTP_URL = 'smtp://127.0.0.1:1';
    try {
      const running = await demoProviders.start();
      try {
        const env = running.env;
        expect(env.TELEGRAM_BOT_TOKEN).toBe(DEV_TELEGRAM_BOT_TOKEN);
        expect(env.TELEGRAM_WEBHOOK_SECRET).toMatch(/^[A-Za-z0-9_-]{32}$/);
        const me = await fetch(`${env.TELEGRAM_API_URL}/bot${env.TELEGRAM_BOT_TOKEN}/getMe`).then((r) => r.json());
        expect(me).toMatchObject({ ok: true, result: { username: 'invest_dev_bot' } });
        expect(running.hint).toContain(`${env.TELEGRAM_API_URL}/`);
      } finally {
        await running.close();
      }
      process.env.TELEGRAM_BOT_TOKEN = '123:real-bot';
      const real = await demoProviders.start();
      expect(real.env).toEqual({});
      await real.close();
    } finally {
      process.env = saved;
    }
  });
});
