/**
 * The alerts metrics (issue 36): firings counted by type when they commit, by the RatesUpdated consumer and by a
 * sweep, and the consumer's firings timed from their rate's event. Real Postgres and NATS; the registry is the
 * process's, so each test compares values before and after.
 */
import { randomUUID } from 'node:crypto';
import { type MarketEvent, MarketEventTypes } from '@invest/contracts';
import { type Db, openDatabase } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { type Bus, connectBus, ensureEventStream, streamNameOf } from '@invest/platform/messaging/bus';
import { createTestDatabase, metricValue, testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FiringPublisher } from '../src/delivery/firing-publisher.js';
import { AlertsEvaluator } from '../src/evaluation/alerts-evaluator.js';
import { sweep } from '../src/jobs/alerts-jobs.js';
import { migrations } from '../src/migrations/index.js';
import { handleMarketEvent } from '../src/rates/rates-updated.consumer.js';

let db: Db;
let bus: Bus;
let publisher: FiringPublisher;
let drop: () => Promise<void>;
const logger = createLogger('test', 'silent');
const evaluator = new AlertsEvaluator({ logger, clock: () => new Date(), maxRateAgeMs: 3_600_000, marketTz: 'Europe/Moscow' });

beforeAll(async () => {
  const t = await createTestDatabase('alerts_metrics');
  drop = t.drop;
  db = await openDatabase({ url: t.url, migrations, logger });
  bus = await connectBus({ natsUrl: testNatsUrl(), name: 'alerts-metrics', prefix: `${uniqueName('alerts_metrics')}.` });
  await ensureEventStream(bus, 'alerts');
  publisher = new FiringPublisher({ db, bus, logger });
});
afterAll(async () => {
  await publisher?.stop();
  await bus?.jsm.streams.delete(streamNameOf(bus, 'alerts')).catch(() => undefined);
  await bus?.close();
  await db?.close();
  await drop?.();
});

/** A notification of `userId` on share `assetId` (2: price target, 8: price change) at `value`; the asset's rate as given. */
async function seed(assetId: number, typeId: 2 | 8, value: number, rate: number, change: number, userId: string): Promise<void> {
  // A minute old: the event's rates are newer.
  const at = new Date(Date.now() - 60_000);
  await db.query(
    `insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at) values ('share', $1, $2, 'RUB', $3, $4, $5, $5)
     on conflict (asset_type, asset_id) do update set rate = excluded.rate, change_24h = excluded.change_24h, as_of = excluded.as_of, observed_at = excluded.observed_at`,
    [assetId, `T${assetId}`, rate, change, at],
  );
  await db.query(
    `insert into notifications (user_id, notification_type_id, targetable_type, targetable_id, asset_type, operator, value, initial_value, cooldown_minutes)
     values ($5, $1, 'asset', $2, 'share', '>=', $3, $3, $4)`,
    [typeId, assetId, value, typeId === 8 ? 60 : null, userId],
  );
}

/** A RatesUpdated as the screener publishes it, recorded `agoMs` before now. */
function ratesEvent(rates: { assetId: number; rate: number; change: number }[], agoMs: number): MarketEvent {
  const recordedAt = new Date(Date.now() - agoMs).toISOString();
  return {
    id: randomUUID(),
    type: MarketEventTypes.RatesUpdated,
    streamName: 'rates-share',
    streamPosition: 1,
    recordedAt,
    data: {
      version: 1,
      source: 'test',
      rates: rates.map((r) => ({ assetType: 'share', assetId: r.assetId, ticker: `T${r.assetId}`, currency: 'RUB', rate: r.rate, priceChangePercentage24h: r.change, asOf: recordedAt })),
    },
    metadata: {},
  } as MarketEvent;
}

const FIRINGS = 'invest_alerts_firings_total';
const LATENCY = 'invest_alerts_rate_to_firing_seconds';

describe('alerts metrics', () => {
  it('a RatesUpdated event counts its firings by type and times each from the event to its commit', async () => {
    await seed(1, 2, 110, 100, 0, 'm1');
    await seed(2, 8, 5, 100, 0, 'm2');
    await seed(2, 8, 5, 100, 0, 'm3');
    const before = { target: await metricValue(FIRINGS, { type: 'price-target' }), change: await metricValue(FIRINGS, { type: 'price-change' }) };
    const timed = await metricValue(LATENCY, {}, '_count');
    const summed = await metricValue(LATENCY, {}, '_sum');

    // Recorded three seconds ago (a consumer behind): each firing's time includes them.
    const event = ratesEvent([{ assetId: 1, rate: 111, change: 0 }, { assetId: 2, rate: 106, change: 6 }], 3_000);
    await db.transaction((tx) => handleMarketEvent(event, tx, { db, evaluator, publisher, logger, firingChunk: 1 }));

    expect(await metricValue(FIRINGS, { type: 'price-target' })).toBe(before.target + 1);
    expect(await metricValue(FIRINGS, { type: 'price-change' })).toBe(before.change + 2);
    expect(await metricValue(LATENCY, {}, '_count')).toBe(timed + 3);
    expect((await metricValue(LATENCY, {}, '_sum')) - summed).toBeGreaterThanOrEqual(9);
    // Nothing more to fire: the same rates again count nothing.
    await db.transaction((tx) => handleMarketEvent(ratesEvent([{ assetId: 1, rate: 112, change: 0 }], 0), tx, { db, evaluator, publisher, logger }));
    expect(await metricValue(FIRINGS, { type: 'price-target' })).toBe(before.target + 1);
    expect(await metricValue(LATENCY, {}, '_count')).toBe(timed + 3);
  });

  it("a sweep's firings are counted by type, but not timed (no rate event caused them)", async () => {
    await seed(3, 2, 110, 111, 0, 'm4');
    const before = await metricValue(FIRINGS, { type: 'price-target' });
    const timed = await metricValue(LATENCY, {}, '_count');
    const r = await sweep(db, evaluator, publisher, 'price-target', 'test-sweep');
    expect(r.fired).toBe(1);
    expect(await metricValue(FIRINGS, { type: 'price-target' })).toBe(before + 1);
    expect(await metricValue(LATENCY, {}, '_count')).toBe(timed);
  });
});
