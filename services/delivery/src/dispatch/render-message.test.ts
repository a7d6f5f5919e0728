import type { NotificationFiredV1 } from '@invest/contracts';
import { describe, expect, it } from 'vitest';
import { countNotifications, formatChange, renderMessage } from './render-message.js';

function firing(id: number, ticker: string, change: number | null, path = '/assets/share/1'): NotificationFiredV1 {
  return {
    version: 1,
    firingId: id,
    userId: 'u1',
    notificationId: 100 + id,
    type: 'price-change',
    title: `${ticker}: изменение`,
    body: `тело ${id}`,
    texts: { ru: { title: `${ticker}: изменение`, body: `тело ${id}` }, en: { title: `${ticker}: change`, body: `body ${id}` } },
    path,
    assets: [{ type: 'share', id: 1, ticker, name: ticker, rate: 10, price_change_percentage_24h: change, as_of: '2026-03-10T10:00:00.000Z' }],
    explanation: {
      threshold: 5,
      operator: '>=',
      next_threshold: 10,
      cooldown_ends_at: null,
      rate: 10,
      price_change_percentage_24h: change,
      rate_as_of: '2026-03-10T10:00:00.000Z',
      observed_at: '2026-03-10T10:00:00.000Z',
      latency_ms: 5,
      source: 'event',
    },
    firedAt: `2026-03-10T10:00:0${id}.000Z`,
  };
}

const base = { userId: 'u1', publicBaseUrl: 'https://invest.example', digest: false };

describe('countNotifications', () => {
  it('uses the Russian plural forms', () => {
    expect([1, 2, 3, 5, 11, 21, 22, 25, 101].map((n) => countNotifications(n, 'ru'))).toEqual([
      '1 уведомление',
      '2 уведомления',
      '3 уведомления',
      '5 уведомлений',
      '11 уведомлений',
      '21 уведомление',
      '22 уведомления',
      '25 уведомлений',
      '101 уведомление',
    ]);
    expect([1, 3].map((n) => countNotifications(n, 'en'))).toEqual(['1 notification', '3 notifications']);
  });
});

describe('formatChange', () => {
  it('signs and rounds the change as each language writes it', () => {
    expect(formatChange(5.24, 'ru')).toBe('+5,2\u00a0%');
    expect(formatChange(-3, 'ru')).toBe('-3\u00a0%');
    expect(formatChange(5.24, 'en')).toBe('+5.2%');
    expect(formatChange(0, 'en')).toBe('0%');
  });
});

describe('renderMessage', () => {
  it('several firings of one move: "LKOH +5,2 %: 3 уведомления", each body a line, linking to the inbox', () => {
    const firings = [firing(1, 'LKOH', 5.2), firing(2, 'LKOH', 5.2), firing(3, 'SBER', 1.5)];
    const ru = renderMessage({ ...base, language: 'ru', firings });
    expect(ru.title).toBe('LKOH +5,2\u00a0%: 3 уведомления');
    expect(ru.lines).toEqual(['тело 1', 'тело 2', 'тело 3']);
    expect(ru.url).toBe('https://invest.example/notifications');
    const en = renderMessage({ ...base, language: 'en', firings });
    expect(en.title).toBe('LKOH +5.2%: 3 notifications');
    expect(en.lines).toEqual(['body 1', 'body 2', 'body 3']);
  });

  it('the furthest move heads the title, down as well as up; no change known: the count alone', () => {
    expect(renderMessage({ ...base, language: 'en', firings: [firing(1, 'LKOH', 2), firing(2, 'GAZP', -7.25)] }).title).toBe('GAZP -7.3%: 2 notifications');
    expect(renderMessage({ ...base, language: 'ru', firings: [firing(1, 'LKOH', null), firing(2, 'GAZP', null)] }).title).toBe('2 уведомления');
  });

  it('one firing keeps its own title; it links to its page when the web client has one, else to the inbox', () => {
    const one = renderMessage({ ...base, language: 'en', firings: [firing(1, 'LKOH', 5, '/portfolios/7')] });
    expect(one).toMatchObject({ title: 'LKOH: change', lines: ['body 1'], url: 'https://invest.example/portfolios/7', digest: false });
    expect(renderMessage({ ...base, language: 'ru', firings: [firing(1, 'LKOH', 5, '/assets/share/1')] }).url).toBe('https://invest.example/notifications');
  });

  it('a digest says so; a language the firing lacks falls back to its default text', () => {
    const digest = renderMessage({ ...base, digest: true, language: 'ru', firings: [firing(1, 'LKOH', 5), firing(2, 'LKOH', 6), firing(3, 'LKOH', 7), firing(4, 'LKOH', 8), firing(5, 'LKOH', 9)] });
    expect(digest.title).toBe('Сводка: 5 уведомлений');
    expect(digest.digest).toBe(true);
    const bare = { ...firing(1, 'LKOH', 5), texts: {} };
    expect(renderMessage({ ...base, language: 'en', firings: [bare] }).title).toBe('LKOH: изменение');
  });
});
