import { randomUUID } from 'node:crypto';
import { type BusEvent, eventSubject, MarketEventTypes, type RateChange, type RatesUpdatedV1 } from '@invest/contracts';
import { type Bus, busSubject, streamNameOf, unprefixedSubject } from '@invest/platform';

/**
 * Test helpers shared by the service's and the gateway's end-to-end tests: publish RatesUpdated as the
 * market would, read what the portfolios relay published.
 */

/** Publishes one `market.events.RatesUpdated` v1 event (the bus form the relays produce). */
export async function publishRates(bus: Bus, rates: RateChange[], source = 'test'): Promise<string> {
  const id = randomUUID();
  const data: RatesUpdatedV1 = { version: 1, source, rates };
  const event: BusEvent<RatesUpdatedV1> = {
    id,
    type: MarketEventTypes.RatesUpdated,
    streamName: `rates-${source}`,
    streamPosition: 1,
    recordedAt: new Date().toISOString(),
    data,
    metadata: {},
  };
  await bus.js.publish(busSubject(bus.prefix, eventSubject('market', MarketEventTypes.RatesUpdated)), JSON.stringify(event), { msgID: id });
  return id;
}

export interface PublishedEvent {
  subject: string;
  event: BusEvent;
}

/** Every message of the PORTFOLIOS_EVENTS stream of this bus prefix, in stream order, subject without the prefix. */
export async function readPortfolioEvents(bus: Bus): Promise<PublishedEvent[]> {
  const stream = streamNameOf(bus, 'portfolios');
  const info = await bus.jsm.streams.info(stream);
  const out: PublishedEvent[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const msg = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (!msg) continue;
    out.push({ subject: unprefixedSubject(bus.prefix, msg.subject) ?? msg.subject, event: msg.json<BusEvent>() });
  }
  return out;
}

/** The use lock a deal or watchlist item on a custom asset holds from its fence check to its commit (for tests that hold one open). */
export { lockAssetUse } from '../asset-uses/asset-use.js';
