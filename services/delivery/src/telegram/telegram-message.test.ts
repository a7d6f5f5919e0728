import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../channels/channel.js';
import { escapeHtml, TELEGRAM_TEXT_MAX, telegramMessage } from './telegram-message.js';

const message = (over: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  userId: 'u1',
  language: 'ru',
  title: 'LKOH +5,2 %: 3 уведомления',
  lines: ['LKOH выше 7000 ₽'],
  url: 'https://invest.example/notifications/7',
  digest: false,
  firings: [],
  ...over,
});

describe('a notification as a Telegram message', () => {
  it('escapes the three characters HTML parse mode reads, and only them', () => {
    expect(escapeHtml(`<b>A & B</b> "q" 'a'`)).toBe(`&lt;b&gt;A &amp; B&lt;/b&gt; "q" 'a'`);
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });

  it('puts the title in bold over the escaped lines, in HTML mode, with a button to the page in the user language', () => {
    const params = telegramMessage(42, message({ title: 'A<B & C', lines: ['x > y', '<script>'], language: 'en' }));
    expect(params).toEqual({
      chat_id: 42,
      text: '<b>A&lt;B &amp; C</b>\n\nx &gt; y\n&lt;script&gt;',
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
      reply_markup: { inline_keyboard: [[{ text: 'Open', url: 'https://invest.example/notifications/7' }]] },
    });
    expect(telegramMessage(42, message()).reply_markup?.inline_keyboard[0]![0]!.text).toBe('Открыть');
  });

  it('leaves out the lines that would pass 4096 characters and says how many', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `${i}: ${'x'.repeat(95)}`);
    const params = telegramMessage(1, message({ lines, language: 'en' }));
    const plain = params.text.replace(/<\/?b>/g, '');
    expect(plain.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
    const shown = plain.split('\n').filter((l) => /^\d+: x/.test(l)).length;
    expect(shown).toBeGreaterThan(30);
    expect(plain.endsWith(`…and ${100 - shown} more`)).toBe(true);
  });
});
