import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTelegram, startFakeTelegram } from '../testing/fake-telegram.js';
import { TelegramApiError, TelegramClient } from './telegram.client.js';
import { chatIsGone, sendResultOf } from './telegram-send-result.js';

const TOKEN = '4242:client-test-token-secret-part';

describe('the Telegram client against the Bot API stand-in', () => {
  let fake: FakeTelegram;
  let client: TelegramClient;
  beforeAll(async () => {
    fake = await startFakeTelegram({ token: TOKEN, botUsername: 'client_test_bot' });
    client = new TelegramClient({ apiUrl: fake.url, botToken: TOKEN, timeoutMs: 2000 });
    await fake.userSays(1001, 'hi');
  });
  afterAll(() => fake.close());

  const failure = (p: Promise<unknown>) =>
    p.then(
      () => expect.unreachable('the call succeeded'),
      (err: unknown) => err as TelegramApiError,
    );

  it('asks getMe once and keeps the bot', async () => {
    const before = fake.calls.filter((c) => c.method === 'getMe').length;
    expect((await client.getMe()).username).toBe('client_test_bot');
    expect((await client.getMe()).username).toBe('client_test_bot');
    expect(fake.calls.filter((c) => c.method === 'getMe').length).toBe(before + 1);
  });

  it('sends a message as JSON and reads its id', async () => {
    const sent = await client.sendMessage({ chat_id: 1001, text: '<b>x &amp; y</b>', parse_mode: 'HTML', reply_markup: { inline_keyboard: [[{ text: 'Open', url: 'https://e.example/a' }]] } });
    expect(sent.message_id).toBeGreaterThan(0);
    expect(fake.messages(1001).at(-1)).toMatchObject({ text: 'x & y', tags: ['b'], buttons: [[{ text: 'Open', url: 'https://e.example/a' }]] });
  });

  it("reads a 429's retry_after, and makes it a retry after that long", async () => {
    fake.throttleNext(1, 7, 1001);
    const err = await failure(client.sendMessage({ chat_id: 1001, text: 'a' }));
    expect(err).toBeInstanceOf(TelegramApiError);
    expect(err).toMatchObject({ kind: 'api', status: 429, retryAfterS: 7, description: 'Too Many Requests: retry after 7' });
    expect(sendResultOf(err)).toEqual({ outcome: 'retry', reason: 'telegram sendMessage: 429 Too Many Requests: retry after 7', afterMs: 7000 });
  });

  it('makes a blocked bot and an unknown chat permanent, a 5xx a retry', async () => {
    fake.block(1001);
    const blocked = await failure(client.sendMessage({ chat_id: 1001, text: 'a' }));
    fake.block(1001, false);
    expect(sendResultOf(blocked)).toEqual({ outcome: 'permanent', reason: 'telegram sendMessage: 403 Forbidden: bot was blocked by the user' });
    const unknown = await failure(client.sendMessage({ chat_id: 999, text: 'a' }));
    expect(sendResultOf(unknown)).toEqual({ outcome: 'permanent', reason: 'telegram sendMessage: 400 Bad Request: chat not found' });
    expect([blocked, unknown].map((e) => chatIsGone(sendResultOf(e).reason))).toEqual([true, true]);
    fake.failNext(1, 502);
    expect(sendResultOf(await failure(client.sendMessage({ chat_id: 1001, text: 'a' })))).toMatchObject({ outcome: 'retry' });
  });

  it('takes markup Telegram would refuse as permanent (the stand-in parses HTML as strictly)', async () => {
    const err = await failure(client.sendMessage({ chat_id: 1001, text: 'a < b', parse_mode: 'HTML' }));
    expect(err.status).toBe(400);
    expect(err.description).toMatch(/^Bad Request: can't parse entities/);
    expect(sendResultOf(err).outcome).toBe('permanent');
    // Our message was wrong, not the chat: it stays linked.
    expect(chatIsGone(sendResultOf(err).reason)).toBe(false);
  });

  it('never puts the token in an error, even for a wrong token or an unreachable API', async () => {
    const wrong = new TelegramClient({ apiUrl: fake.url, botToken: '4242:wrong-token', timeoutMs: 2000 });
    const unauthorized = await failure(wrong.getMe());
    expect(unauthorized).toMatchObject({ status: 401, description: 'Unauthorized' });
    // A revoked token is our configuration, not the user's chat: messages wait.
    expect(sendResultOf(unauthorized).outcome).toBe('retry');
    const down = new TelegramClient({ apiUrl: 'http://127.0.0.1:1', botToken: TOKEN, timeoutMs: 2000 });
    const network = await failure(down.getMe());
    expect(network.kind).toBe('network');
    for (const e of [unauthorized, network]) {
      expect(e.message).not.toContain('token');
      expect(e.message).not.toContain(TOKEN.split(':')[1]);
    }
  });

  describe('a Bot API that does not answer', () => {
    let silent: Server;
    beforeAll(async () => {
      silent = createServer(() => undefined);
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    });
    afterAll(() => {
      silent.closeAllConnections();
      silent.close();
    });

    it('times out, and a timeout is a retry (the message may have gone: the outbox says so)', async () => {
      const slow = new TelegramClient({ apiUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, botToken: TOKEN, timeoutMs: 200 });
      const err = await failure(slow.sendMessage({ chat_id: 1, text: 'a' }));
      expect(err.kind).toBe('timeout');
      expect(sendResultOf(err).outcome).toBe('retry');
    });
  });
});
