import { createLogger } from '@invest/platform/logging/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../channels/channel.js';
import { type FakeTelegram, startFakeTelegram } from '../testing/fake-telegram.js';
import { TelegramClient } from './telegram.client.js';
import { TelegramPacer } from './telegram-pacer.js';
import { TelegramSender } from './telegram.sender.js';

const TOKEN = '4243:sender-test-token-secret-part';

const message: OutgoingMessage = { userId: 'u1', language: 'ru', title: 'LKOH +5,2 %', lines: ['Цель 7 000 ₽ достигнута'], url: 'https://invest.test/inbox', digest: false, firings: [] };

describe('the Telegram sender', () => {
  let fake: FakeTelegram;
  let client: TelegramClient;
  beforeAll(async () => {
    fake = await startFakeTelegram({ token: TOKEN, botUsername: 'sender_test_bot' });
    client = new TelegramClient({ apiUrl: fake.url, botToken: TOKEN, timeoutMs: 2000 });
    for (const chat of [2001, 2002]) await fake.userSays(chat, '/start');
  });
  afterAll(() => fake.close());

  const sender = (paidBroadcast: boolean) =>
    new TelegramSender({ client, pacer: new TelegramPacer({ perChatMs: 0, perSecond: 1000 }), clock: () => new Date(), logger: createLogger('test', 'silent'), paidBroadcast });

  it('asks for a paid broadcast only when paced above the free ~30 messages a second', async () => {
    expect(await sender(false).send('2001', message)).toMatchObject({ outcome: 'sent' });
    expect(await sender(true).send('2002', message)).toMatchObject({ outcome: 'sent' });
    expect(fake.messages(2001).at(-1)).toMatchObject({ text: expect.stringContaining('LKOH +5,2 %'), paid_broadcast: false });
    expect(fake.messages(2002).at(-1)).toMatchObject({ text: expect.stringContaining('LKOH +5,2 %'), paid_broadcast: true });
  });
});
