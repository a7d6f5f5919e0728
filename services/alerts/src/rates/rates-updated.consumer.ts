import { assertNever, decodeMarketEvent, type MarketEvent, MarketEventTypes } from '@invest/contracts';
import type { Db, Tx } from '@invest/platform/db/database';
import type { Logger } from '@invest/platform/logging/logger';
import { type Bus, eventStreamSource } from '@invest/platform/messaging/bus';
import { DurableConsumer } from '@invest/platform/messaging/durable-consumer';
import { trustedRatesOf } from '@invest/platform/messaging/trusted-rates';
import type { FiringPublisher } from '../delivery/firing-publisher.js';
import type { AlertsEvaluator } from '../evaluation/alerts-evaluator.js';
import { recordInChunks } from '../evaluation/chunked-recording.js';
import { observeRateToFiring } from '../evaluation/firings.metrics.js';
import { assetTargetKey, markTargetDeleted } from '../membership/membership.repository.js';
import { pendingRates } from './latest-rates.repository.js';

export interface MarketEventDeps {
  /** Where each chunk of firings commits, and where the candidates are read while the rates are checked (the service's database). */
  db: Pick<Db, 'transaction'>;
  evaluator: AlertsEvaluator;
  publisher: FiringPublisher;
  logger: Logger;
  /** Firings per chunk and chunks written at once (defaults in chunked-recording.ts; tests crash between chunks of 1). */
  firingChunk?: number;
  firingWriters?: number;
}

export const RATES_UPDATED_DURABLE = 'alerts__rates-updated';
export const ASSET_DELETED_DURABLE = 'alerts__asset-deleted';

/**
 * One market event, inside the consumer's inbox transaction: the batch's rates become the latest rates,
 * and only the notifications those assets can affect are evaluated (the candidate index's, read on a
 * connection of their own while the rates are checked against the stored ones; the rates are stored once
 * the firings are published). The firings are
 * recorded in chunks, each in a transaction of its own (`firingWriters` at once), and each chunk's
 * NotificationFired is published as soon as it committed, while the next chunks are written; the rates and
 * the inbox row commit after the last chunk. A crash between chunks redelivers the event: the rows already
 * fired are no longer as they were read (and their step keys are taken), so only the rest fires.
 */
export async function handleMarketEvent(event: MarketEvent, tx: Tx, deps: MarketEventDeps): Promise<void> {
  const { db, evaluator, publisher, logger } = deps;
  switch (event.type) {
    case MarketEventTypes.RatesUpdated: {
      const t0 = performance.now();
      const observedAt = new Date(event.recordedAt);
      const trusted = trustedRatesOf(event, logger, evaluator.now());
      if (trusted.length === 0) return;
      const rates = pendingRates(tx, trusted, observedAt);
      // The candidates are found and read while the rates are checked; they are stored after the firings.
      const { plan, fired } = await evaluator.exclusive(async () => {
        const plan = await evaluator.planEvent(db, tx, rates.batch, rates.changed, 'event', rates.store);
        const publishing: Promise<void>[] = [];
        try {
          const fired = await recordInChunks(db, evaluator, plan, {
            size: deps.firingChunk,
            writers: deps.firingWriters,
            timings: evaluator.lastTimings,
            t0,
            onCommitted: (committed) => {
              observeRateToFiring(observedAt.getTime(), committed.firings.length);
              publishing.push(publisher.publish(committed));
            },
          });
          return { plan, fired };
        } finally {
          // What committed is published before the inbox row commits and the event is acked, also when a
          // later chunk failed (what cannot be published is left to the backstop).
          await Promise.all(publishing);
        }
      });
      // Phases of this event (logged at debug below): `...At` are ms since the handler started.
      const timings = evaluator.lastTimings;
      timings.publishedAt = performance.now() - t0;
      // The rates become the latest with the inbox row: written now, off the way from a rate to its notification.
      await rates.store();
      timings.storedAt = performance.now() - t0;
      logger.debug({ eventId: event.id, rates: event.data.rates.length, candidates: plan.candidates, fired, timings }, 'rates evaluated');
      // The index's lists this event changed are sorted between events, not by the next one's match.
      setImmediate(() => evaluator.index.tidy());
      return;
    }
    case MarketEventTypes.AssetDeleted: {
      // A target deleted upstream (a custom asset its owner deleted): its notifications are deactivated, and
      // a create or switch-on that asked the screener before the deletion refuses it in its transaction.
      const deactivated = await markTargetDeleted(tx, assetTargetKey(event.data.assetType, event.data.assetId), new Date());
      logger.info({ assetType: event.data.assetType, assetId: event.data.assetId, deactivated }, 'asset deleted upstream; its notifications are deactivated');
      return;
    }
    case MarketEventTypes.AssetUpdated:
      // Not delivered (no consumer of alerts filters on it): texts use the name known at creation.
      return;
    default:
      return assertNever(event, 'market event');
  }
}

export interface RatesUpdatedConsumerOptions extends MarketEventDeps {
  db: Db;
  bus: Bus;
  ackWaitMs?: number;
}

/** Durable consumer `alerts__rates-updated` on MARKET_EVENTS, filter `market.events.RatesUpdated`. */
export function createRatesUpdatedConsumer(opts: RatesUpdatedConsumerOptions): DurableConsumer<MarketEvent> {
  return new DurableConsumer<MarketEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'market', MarketEventTypes.RatesUpdated),
    durableName: RATES_UPDATED_DURABLE,
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    decode: decodeMarketEvent,
    handle: (event, tx) => handleMarketEvent(event, tx, opts),
  });
}

/** Durable consumer `alerts__asset-deleted` on MARKET_EVENTS, filter `market.events.AssetDeleted` (one filter per consumer on nats-server 2.9). */
export function createAssetDeletedConsumer(opts: RatesUpdatedConsumerOptions): DurableConsumer<MarketEvent> {
  return new DurableConsumer<MarketEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'market', MarketEventTypes.AssetDeleted),
    durableName: ASSET_DELETED_DURABLE,
    logger: opts.logger,
    decode: decodeMarketEvent,
    handle: (event, tx) => handleMarketEvent(event, tx, opts),
  });
}
