import { z } from 'zod';
import { assetRefSchema } from '../common/assets.js';
import { type BusEvent, decodeEvent, type EventOf, eventTypeNames, type UnknownEvent } from '../common/events.js';

/**
 * Integration events of the portfolios service (`portfolios.events.<Type>.<portfolioId|watchlistId>`), v1.
 * Alerts learn portfolio and watchlist membership from them; the screener learns which assets are in use.
 */
export const portfolioCreatedV1Schema = z.object({
  version: z.literal(1),
  portfolioId: z.number().int(),
  userId: z.string(),
  name: z.string(),
  currencyCode: z.string(),
});
export const portfolioDeletedV1Schema = z.object({ version: z.literal(1), portfolioId: z.number().int(), userId: z.string() });
/** An asset entered (first open quantity) or left (quantity back to zero) a portfolio. */
export const positionChangedV1Schema = z.object({
  version: z.literal(1),
  portfolioId: z.number().int(),
  userId: z.string(),
  asset: assetRefSchema,
});
export const watchlistItemChangedV1Schema = z.object({
  version: z.literal(1),
  watchlistId: z.number().int(),
  itemId: z.number().int(),
  userId: z.string(),
  asset: assetRefSchema,
});

/** A watchlist was deleted (after the WatchlistItemRemoved of each of its items): alerts deactivate its notifications. */
export const watchlistDeletedV1Schema = z.object({ version: z.literal(1), watchlistId: z.number().int(), userId: z.string() });

export type PortfolioCreatedV1 = z.infer<typeof portfolioCreatedV1Schema>;
export type PortfolioDeletedV1 = z.infer<typeof portfolioDeletedV1Schema>;
export type PositionChangedV1 = z.infer<typeof positionChangedV1Schema>;
export type WatchlistItemChangedV1 = z.infer<typeof watchlistItemChangedV1Schema>;

/**
 * Every integration event on PORTFOLIOS_EVENTS, with the data versions this release reads. A new type or
 * version is added here first; readers are deployed before writers publish it.
 */
export const portfolioEvents = {
  PortfolioCreated: portfolioCreatedV1Schema,
  PortfolioDeleted: portfolioDeletedV1Schema,
  PositionOpened: positionChangedV1Schema,
  PositionClosed: positionChangedV1Schema,
  WatchlistItemAdded: watchlistItemChangedV1Schema,
  WatchlistItemRemoved: watchlistItemChangedV1Schema,
  WatchlistDeleted: watchlistDeletedV1Schema,
};

/** Type names of PORTFOLIOS_EVENTS: `PortfolioEventTypes.PositionOpened === 'PositionOpened'`. */
export const PortfolioEventTypes = eventTypeNames(portfolioEvents);
export type PortfolioEventType = keyof typeof portfolioEvents;

/** An event of PORTFOLIOS_EVENTS; `switch (event.type)` narrows its data. */
export type PortfolioEvent = EventOf<typeof portfolioEvents>;

/** The typed PORTFOLIOS_EVENTS event, or `UnknownEvent` when this release does not read its type or version. */
export function decodePortfolioEvent(event: BusEvent): PortfolioEvent | UnknownEvent {
  return decodeEvent(portfolioEvents, event);
}
