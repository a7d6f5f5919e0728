import { type BusEvent, RATES_UPDATED, ratesUpdatedV1Schema } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, type Logger, streamNameOf, type Tx } from '@invest/platform';
import { applyRates } from './asset-catalog.repository.js';

export const RATES_UPDATED_DURABLE = 'portfolios__rates-updated';

/** Applies one RatesUpdated event to the local price table (inside the consumer's inbox transaction). */
export async function handleRatesUpdated(event: BusEvent, tx: Tx, logger: Logger): Promise<void> {
  if (event.type !== RATES_UPDATED) return;
  const parsed = ratesUpdatedV1Schema.safeParse(event.data);
  if (!parsed.success) {
    // A version this release does not read, or a malformed batch: skip it (recorded in the inbox) and say so.
    logger.warn({ eventId: event.id, issues: parsed.error.issues.slice(0, 5) }, 'RatesUpdated not understood; skipped');
    return;
  }
  const changed = await applyRates(tx, parsed.data.rates);
  logger.debug({ eventId: event.id, rates: parsed.data.rates.length, changed }, 'rates applied');
}

/** Durable consumer `portfolios__rates-updated` on the market stream, filter `market.events.RatesUpdated`. */
export function createRatesUpdatedConsumer(opts: { db: Db; bus: Bus; logger: Logger; ackWaitMs?: number }): DurableConsumer {
  return new DurableConsumer({
    db: opts.db,
    bus: opts.bus,
    stream: streamNameOf(opts.bus, 'market'),
    durableName: RATES_UPDATED_DURABLE,
    filterSubject: `market.events.${RATES_UPDATED}`,
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    handle: (event, tx) => handleRatesUpdated(event, tx, opts.logger),
  });
}
