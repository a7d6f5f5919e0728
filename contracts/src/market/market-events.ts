import type { AssetType } from '../common/assets.js';
import { STREAM_HEADER } from '../common/envelope.js';
import { type BusEvent, decodeEvent, type EventOf, eventTypeNames, type UnknownEvent } from '../common/events.js';
import { assetDeletedV1Schema, assetUpdatedV1Schema } from './asset-updated.event.js';
import { readRatesUpdatedV1, ratesUpdatedV1Schema } from './rates-updated.event.js';

/**
 * Every integration event on MARKET_EVENTS (`market.events.<Type>`), with the data versions this release
 * reads. A new type or version is added here first; readers are deployed before writers publish it.
 */
export const marketEvents = {
  RatesUpdated: ratesUpdatedV1Schema,
  AssetUpdated: assetUpdatedV1Schema,
  AssetDeleted: assetDeletedV1Schema,
};

/** Type names of MARKET_EVENTS: `MarketEventTypes.RatesUpdated === 'RatesUpdated'`. */
export const MarketEventTypes = eventTypeNames(marketEvents);
export type MarketEventType = keyof typeof marketEvents;

/** An event of MARKET_EVENTS; `switch (event.type)` narrows its data. */
export type MarketEvent = EventOf<typeof marketEvents>;

/** The typed MARKET_EVENTS event, or `UnknownEvent` when this release does not read its type or version. */
export function decodeMarketEvent(event: BusEvent): MarketEvent | UnknownEvent {
  // A batch of every asset every minute: checked by hand (the schema's rules, without its cost per rate);
  // what that refuses goes through the schema, which says why.
  if (event.type === 'RatesUpdated') {
    const data = readRatesUpdatedV1(event.data);
    if (data) return { ...event, type: 'RatesUpdated', data };
  }
  return decodeEvent(marketEvents, event);
}

/** Stream of the rate events of one asset type (the screener's event store; the `x-event-stream` header). */
export const ratesStreamName = (type: AssetType) => `rates-${type}`;

/** Stream of one asset's description events (AssetUpdated, AssetDeleted): its position orders that asset's changes. */
export const assetStreamName = (type: AssetType, id: number) => `asset-${type}-${id}`;

/**
 * Whether a MARKET_EVENTS message, by its headers (the stream its relay names in `x-event-stream`), can change the
 * public share screener. A custom asset's event cannot (they are never listed there), and any signed-in user can
 * write one as often as they like: caches of the screener's pages must not be cleared by them. Without the header,
 * it may.
 */
export function mayChangeShareScreener(headers: { get(key: string): string } | undefined): boolean {
  // nats.js answers '' for a header the message lacks.
  const stream = headers?.get(STREAM_HEADER) || undefined;
  return stream === undefined || !(stream === ratesStreamName('custom_asset') || stream.startsWith(`asset-custom_asset-`));
}
