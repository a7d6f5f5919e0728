import { assertNever, decodeMarketEvent, type MarketEvent, MarketEventTypes } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, type Logger, type Tx, eventStreamSource, trustedRatesOf } from '@invest/platform';
import { applyDescription, applyRates } from './asset-catalog.repository.js';

export const RATES_UPDATED_DURABLE = 'portfolios__rates-updated';
export const ASSET_UPDATED_DURABLE = 'portfolios__asset-updated';

/**
 * Applies one market event to the local asset catalog, prices and descriptions (inside the consumer's inbox
 * transaction). Events this release does not read never get here: the consumer leaves them for a later release.
 */
export async function handleMarketEvent(event: MarketEvent, tx: Tx, logger: Logger): Promise<void> {
  switch (event.type) {
    case MarketEventTypes.RatesUpdated: {
      const trusted = trustedRatesOf(event, logger);
      const changed = trusted.length > 0 ? await applyRates(tx, trusted) : 0;
      logger.debug({ eventId: event.id, rates: event.data.rates.length, changed }, 'rates applied');
      return;
    }
    case MarketEventTypes.AssetUpdated: {
      // Ordered per asset by the position on its stream (`asset-<type>-<id>`).
      const { version: _version, ...description } = event.data;
      const changed = await applyDescription(tx, description, event.streamPosition);
      logger.debug({ eventId: event.id, assetType: description.assetType, assetId: description.assetId, changed }, 'asset description applied');
      return;
    }
    case MarketEventTypes.AssetDeleted:
      // Deals and watchlist items that still refer to it keep the last description and price as history.
      return;
    default:
      return assertNever(event, 'market event');
  }
}

export interface RatesUpdatedConsumerOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  ackWaitMs?: number;
  /** Delay before an event this release does not read is offered again (tests shorten it). */
  unknownRetryMs?: number;
}

/** Durable consumer `portfolios__rates-updated` on the market stream, filter `market.events.RatesUpdated`. */
export function createRatesUpdatedConsumer(opts: RatesUpdatedConsumerOptions): DurableConsumer<MarketEvent> {
  return new DurableConsumer<MarketEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'market', MarketEventTypes.RatesUpdated),
    durableName: RATES_UPDATED_DURABLE,
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    ...(opts.unknownRetryMs ? { unknownRetryMs: opts.unknownRetryMs } : {}),
    decode: decodeMarketEvent,
    handle: (event, tx) => handleMarketEvent(event, tx, opts.logger),
  });
}

/**
 * Durable consumer `portfolios__asset-updated` on the market stream, filter `market.events.AssetUpdated` (one
 * filter per consumer on nats-server 2.9, so descriptions have their own durable; the same handler).
 */
export function createAssetUpdatedConsumer(opts: RatesUpdatedConsumerOptions): DurableConsumer<MarketEvent> {
  return new DurableConsumer<MarketEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'market', MarketEventTypes.AssetUpdated),
    durableName: ASSET_UPDATED_DURABLE,
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    ...(opts.unknownRetryMs ? { unknownRetryMs: opts.unknownRetryMs } : {}),
    decode: decodeMarketEvent,
    handle: (event, tx) => handleMarketEvent(event, tx, opts.logger),
  });
}
