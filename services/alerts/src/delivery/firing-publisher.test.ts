import { describe, expect, it } from 'vitest';
import { type FiringRecord, firingJson, notificationFiredEvent, notificationFiredParts } from './firing-publisher.js';

const parsed = (f: FiringRecord): unknown => JSON.parse(notificationFiredParts(f).map((part) => part.toString()).join(''));

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

describe('NotificationFired as UTF-8 JSON', () => {
  it('is the event, with the documents written for the row spliced in', () => {
    const withDocuments = { ...firing, json: firingJson(firing.texts, firing.assets, firing.explanation) };
    expect(parsed(withDocuments)).toEqual(notificationFiredEvent(firing));
  });

  it('is the event when the documents were not written yet (a firing read back by the backstop)', () => {
    expect(parsed(firing)).toEqual(notificationFiredEvent(firing));
  });

  it('takes the documents as written: the row and the event carry the same text', () => {
    const json = { texts: '{"ru":{"title":"a","body":"b"}}', assets: '[]', explanation: '{"threshold":1}' };
    const data = (parsed({ ...firing, json }) as { data: Record<string, unknown> }).data;
    expect([data.texts, data.assets, data.explanation]).toEqual([{ ru: { title: 'a', body: 'b' } }, [], { threshold: 1 }]);
  });

  it('encodes the documents once for firings that share them, each message with its own firing', () => {
    const json = firingJson(firing.texts, firing.assets, firing.explanation);
    const other = { ...firing, id: 42, eventId: '0b7f6a4c-4a41-4f4e-8d0c-5b9e8a1f2c33', notificationId: 8, userId: 'u2', json };
    const first = parsed({ ...firing, json });
    expect(parsed(other)).toEqual(notificationFiredEvent(other));
    expect(parsed({ ...firing, json })).toEqual(first);
    expect(first).toEqual(notificationFiredEvent(firing));
  });
});
