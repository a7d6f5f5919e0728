import { describe, expect, it } from 'vitest';
import type { NotificationFiredV1 } from './alerts-events.js';
import { notificationEventView, notificationFiredView } from './notification-event-view.js';

const fired: NotificationFiredV1 = {
  version: 1,
  firingId: 42,
  userId: 'u-1',
  notificationId: 7,
  type: 'price-target',
  title: 'SBER: цена 350',
  body: 'Цена достигла 350',
  texts: { ru: { title: 'SBER: цена 350', body: 'Цена достигла 350' }, en: { title: 'SBER: price 350', body: 'The price reached 350' } },
  path: '/shares/1',
  assets: [{ type: 'share', id: 1, ticker: 'SBER', name: 'Сбербанк', rate: 350.5, price_change_percentage_24h: 1.25, as_of: '2026-01-05T10:00:00.000Z' }],
  explanation: {
    threshold: 350,
    operator: '>=',
    next_threshold: null,
    cooldown_ends_at: null,
    rate: 350.5,
    price_change_percentage_24h: 1.25,
    rate_as_of: '2026-01-05T10:00:00.000Z',
    observed_at: '2026-01-05T10:00:00.100Z',
    latency_ms: 12,
    source: 'event',
  },
  firedAt: '2026-01-05T10:00:00.112Z',
};

describe('notificationFiredView', () => {
  it('renders a NotificationFired as the inbox row of the same firing (unread), in the locale asked for', () => {
    const stored = { id: 42, notificationId: 7, type: fired.type, texts: fired.texts, path: fired.path, assets: fired.assets, explanation: fired.explanation, readAt: null, firedAt: new Date(fired.firedAt) };
    for (const locale of ['ru', 'en'] as const) expect(notificationFiredView(fired, locale)).toEqual(notificationEventView(stored, locale));
    expect(notificationFiredView(fired, 'en')).toEqual({
      id: 42,
      notification_id: 7,
      type: 'price-target',
      title: 'SBER: price 350',
      body: 'The price reached 350',
      path: '/shares/1',
      assets: fired.assets,
      explanation: fired.explanation,
      read_at: null,
      fired_at: '2026-01-05T10:00:00.112Z',
    });
  });

  it('falls back to ru when the firing has no text in the locale, and to empty texts when it has none', () => {
    expect(notificationFiredView({ ...fired, texts: { ru: fired.texts.ru! } }, 'en')).toMatchObject({ title: 'SBER: цена 350', body: 'Цена достигла 350' });
    expect(notificationFiredView({ ...fired, texts: {} }, 'en')).toMatchObject({ title: '', body: '' });
  });

  it('gives read_at of a stored firing read, as an ISO time', () => {
    const view = notificationEventView({ ...fired, id: 42, readAt: new Date('2026-01-06T08:00:00Z'), firedAt: new Date(fired.firedAt) }, 'ru');
    expect(view.read_at).toBe('2026-01-06T08:00:00.000Z');
  });
});
