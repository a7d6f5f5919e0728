import { assertNever, decodeMarketEvent, eventSubject, type MarketEvent, MarketEventTypes } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, ensureEventStream, type Logger, streamNameOf, type Tx } from '@invest/platform';
import { applyRates } from './asset-catalog.repository.js';

export const RATES_UPDATED_DURABLE = 'portfolios__rates-updated';

/**
 * Applies one market event to the local price table (inside the consumer's inbox transaction). Events this
 * release does not read never get here: the consumer leaves them for a later release.
 */
export async function handleMarketEvent(event: MarketEvent, tx: Tx, logger: Logger): Promise<void> {
  switch (event.type) {
    case MarketEventTypes.RatesUpdated: {
      const changed = await applyRates(tx, event.data.rates);
      logger.debug({ eventId: event.id, rates: event.data.rates.length, changed }, 'rates applied');
      return;
    }
    case MarketEventTypes.AssetUpdated:
    case MarketEventTypes.AssetDeleted:
      // Not on this consumer's subject.
      return;
    default:
      return assertNever(event.type, 'market event');
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
    bus: opts.bus,
    stream: streamNameOf(opts.bus, 'market'),
    ensureStream: () => ensureEventStream(opts.bus, 'market'),
    durableName: RATES_UPDATED_DURABLE,
    filterSubject: eventSubject('market', MarketEventTypes.RatesUpdated),
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    ...(opts.unknownRetryMs ? { unknownRetryMs: opts.unknownRetryMs } : {}),
    decode: decodeMarketEvent,
    handle: (event, tx) => handleMarketEvent(event, tx, opts.logger),
  });
}
