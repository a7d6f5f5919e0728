/**
 * "A batch of more than 4,000 changed rates is recorded as several RatesUpdated events" (so each bus
 * message stays below NATS' 1 MB payload limit), through the real rate writer and event store.
 */
import { type Db } from '@invest/platform';
import { useTestDatabase } from '@invest/platform/testing/index';
import { beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { type RateInput, writeRateBatch } from './rate-writer.js';

const TZ = 'Europe/Moscow';
/** NATS' default max_payload. */
const NATS_MAX_PAYLOAD = 1024 * 1024;

describe('RatesUpdated: more than 4,000 changed rates', () => {
  let db: Db;
  useTestDatabase('scr_rates_split', migrations, (opened) => (db = opened));
  beforeEach(async () => {
    await db.query('truncate assets, es_events cascade');
  });

  const items = (count: number, rate: number, asOf: string): RateInput[] =>
    Array.from({ length: count }, (_, i) => {
      const key = `S${String(i).padStart(5, '0')}`;
      return { key, ticker: key, name: `Security ${key} with a long enough name`, currency: 'RUB', rate: rate + i / 100, priceSource: 'LAST', priceChangePercentage24h: -1.25, asOf: new Date(asOf) };
    });
  const events = () =>
    db.query<{ type: string; data: { source: string; rates: { ticker: string }[] } }>(`select type, data from es_events order by global_position`);

  it('splits 8,001 changes into events of at most 4,000, in order, each below 1 MB; exactly 4,000 are one event', async () => {
    const result = await writeRateBatch(db, { assetType: 'etf', source: 'split-test', insertMissing: true, items: items(8001, 100, '2024-02-15T10:00:00Z') }, { marketTz: TZ });
    expect(result.changed).toHaveLength(8001);
    expect(result.events).toBe(3);
    const recorded = await events();
    expect(recorded.map((e) => [e.type, e.data.source, e.data.rates.length])).toEqual([
      ['RatesUpdated', 'split-test', 4000],
      ['RatesUpdated', 'split-test', 4000],
      ['RatesUpdated', 'split-test', 1],
    ]);
    // Every change once, none lost at a boundary.
    expect(recorded.flatMap((e) => e.data.rates.map((r) => r.ticker))).toEqual(result.changed.map((c) => c.ticker));
    for (const e of recorded) expect(Buffer.byteLength(JSON.stringify(e))).toBeLessThan(NATS_MAX_PAYLOAD);

    // Exactly 4,000 changes on the next run: one event.
    const next = items(8001, 200, '2024-02-15T11:00:00Z').slice(0, 4000);
    const again = await writeRateBatch(db, { assetType: 'etf', source: 'split-test', insertMissing: false, items: next }, { marketTz: TZ });
    expect(again.events).toBe(1);
    expect((await events()).map((e) => e.data.rates.length)).toEqual([4000, 4000, 1, 4000]);
  });
});
