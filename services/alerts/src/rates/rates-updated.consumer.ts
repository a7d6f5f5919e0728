import { assertNever, decodeMarketEvent, eventSubject, type MarketEvent, MarketEventTypes } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, ensureEventStream, type Logger, streamNameOf, type Tx } from '@invest/platform';
import type { AlertsEvaluator } from '../evaluation/alerts-evaluator.js';
import { upsertRates } from './latest-rates.repository.js';

export const RATES_UPDATED_DURABLE = 'alerts__rates-updated';
export const ASSET_DELETED_DURABLE = 'alerts__asset-deleted';

/**
 * One market event, inside the consumer's inbox transaction: the batch's rates become the latest rates,
 * then only the notifications those assets can affect are evaluated. Firings commit with the inbox row,
 * so a redelivered event is only acked.
 */
export async function handleMarketEvent(event: MarketEvent, tx: Tx, evaluator: AlertsEvaluator, logger: Logger): Promise<void> {
  switch (event.type) {
    case MarketEventTypes.RatesUpdated: {
      const changed = await upsertRates(tx, event.data.rates, new Date(event.recordedAt));
      if (changed.length === 0) return;
      const result = await evaluator.evaluate(tx, { assets: changed }, ['price-target', 'price-change'], 'event');
      logger.debug({ eventId: event.id, rates: event.data.rates.length, changed: changed.length, ...result, firingIds: undefined }, 'rates evaluated');
      return;
    }
    case MarketEventTypes.AssetDeleted: {
      // A target deleted upstream (a custom asset its owner deleted): its notifications are deactivated.
      const rows = await tx.query<{ id: string }>(
        `update notifications set is_active = false, updated_at = now()
         where targetable_type = 'asset' and asset_type = $1 and targetable_id = $2 and is_active returning id::text`,
        [event.data.assetType, event.data.assetId],
      );
      logger.info({ assetType: event.data.assetType, assetId: event.data.assetId, deactivated: rows.length }, 'asset deleted upstream; its notifications are deactivated');
      return;
    }
    case MarketEventTypes.AssetUpdated:
      // Not delivered (no consumer of alerts filters on it): texts use the name known at creation.
      return;
    default:
      return assertNever(event, 'market event');
  }
}

export interface RatesUpdatedConsumerOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  evaluator: AlertsEvaluator;
  ackWaitMs?: number;
  batchSize?: number;
  afterCommit?: (event: MarketEvent) => void | Promise<void>;
}

/** Durable consumer `alerts__rates-updated` on MARKET_EVENTS, filter `market.events.RatesUpdated`. */
export function createRatesUpdatedConsumer(opts: RatesUpdatedConsumerOptions): DurableConsumer<MarketEvent> {
  return new DurableConsumer<MarketEvent>({
    db: opts.db,
    bus: opts.bus,
    stream: streamNameOf(opts.bus, 'market'),
    ensureStream: () => ensureEventStream(opts.bus, 'market'),
    durableName: RATES_UPDATED_DURABLE,
    filterSubject: eventSubject('market', MarketEventTypes.RatesUpdated),
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
    ...(opts.afterCommit ? { afterCommit: opts.afterCommit } : {}),
    decode: decodeMarketEvent,
    handle: (event, tx) => handleMarketEvent(event, tx, opts.evaluator, opts.logger),
  });
}

/** Durable consumer `alerts__asset-deleted` on MARKET_EVENTS, filter `market.events.AssetDeleted` (one filter per consumer on nats-server 2.9). */
export function createAssetDeletedConsumer(opts: RatesUpdatedConsumerOptions): DurableConsumer<MarketEvent> {
  return new DurableConsumer<MarketEvent>({
    db: opts.db,
    bus: opts.bus,
    stream: streamNameOf(opts.bus, 'market'),
    ensureStream: () => ensureEventStream(opts.bus, 'market'),
    durableName: ASSET_DELETED_DURABLE,
    filterSubject: eventSubject('market', MarketEventTypes.AssetDeleted),
    logger: opts.logger,
    decode: decodeMarketEvent,
    handle: (event, tx) => handleMarketEvent(event, tx, opts.evaluator, opts.logger),
  });
}
