import { describe, expect, it } from 'vitest';
import { type FiringRecord, notificationFiredEvent } from './firing-publisher.js';


const firing: FiringRecord = {
  id: 41,
  eventId: '6f1d2c8e-2f43-4c0a-9a55-0d3c1f0b9e11',
  notificationId: 7,
  userId: 'u-"quoted"\\',
  type: 'price-change',
  texts: { ru: { title: 'Портфель «Мой»: +5,2%', body: 'T1 +5,2%\nдалее 10%' }, en: { title: 'Portfolio «Mine»: +5.2%', body: 'T1 +5.2%\nnext 10%' } },
  path: '/portfolios/3',
  assets: [{ type: 'share', id: 1, ticker: 'T1', name: null, rate: 105.2, price_change_percentage_24h: 5.2, as_of: '2026-03-10T12:00:00.000Z' }],
  explanation: {
    threshold: 5,
    operator: '>=',
    next_threshold: 10,
    cooldown_ends_at: null,
    rate: 105.2,
    price_change_percentage_24h: 5.2,
    rate_as_of: '2026-03-10T12:00:00.000Z',
    observed_at: '2026-03-10T12:00:01.000Z',
    latency_ms: 12,
    source: 'event',
  },
  firedAt: new Date('2026-03-10T12:00:01.012Z'),
};

describe('NotificationFired', () => {
  it('carries what a reader shows: ids, texts of each locale, link, assets and explanation', () => {
    const event = notificationFiredEvent(firing);
    expect(event).toMatchObject({ id: firing.eventId, type: 'NotificationFired', streamName: 'notification-firing-41', recordedAt: '2026-03-10T12:00:01.012Z' });
    expect(event.data).toEqual({
      version: 1,
      firingId: 41,
      userId: firing.userId,
      notificationId: 7,
      type: 'price-change',
      title: firing.texts.ru!.title,
      body: firing.texts.ru!.body,
      texts: firing.texts,
      path: '/portfolios/3',
      assets: firing.assets,
      explanation: firing.explanation,
      firedAt: '2026-03-10T12:00:01.012Z',
    });
  });
});
