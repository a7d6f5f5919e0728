import { z } from 'zod';
import { assetRefSchema } from '../common/assets.js';

/**
 * Integration events of the portfolios service (`portfolios.events.<Type>`), v1. Alerts learn
 * portfolio and watchlist membership from them; the screener learns which assets are in use.
 */
export const portfolioCreatedV1 = z.object({
  version: z.literal(1),
  portfolioId: z.number().int(),
  userId: z.string(),
  name: z.string(),
  currencyCode: z.string(),
});
export const portfolioDeletedV1 = z.object({ version: z.literal(1), portfolioId: z.number().int(), userId: z.string() });
/** An asset entered (first open quantity) or left (quantity back to zero) a portfolio. */
export const positionChangedV1 = z.object({
  version: z.literal(1),
  portfolioId: z.number().int(),
  userId: z.string(),
  asset: assetRefSchema,
});
export const watchlistItemChangedV1 = z.object({
  version: z.literal(1),
  watchlistId: z.number().int(),
  itemId: z.number().int(),
  userId: z.string(),
  asset: assetRefSchema,
});

export const PortfolioEventTypes = {
  PortfolioCreated: 'PortfolioCreated',
  PortfolioDeleted: 'PortfolioDeleted',
  PositionOpened: 'PositionOpened',
  PositionClosed: 'PositionClosed',
  WatchlistItemAdded: 'WatchlistItemAdded',
  WatchlistItemRemoved: 'WatchlistItemRemoved',
} as const;

export type PortfolioCreatedV1 = z.infer<typeof portfolioCreatedV1>;
export type PortfolioDeletedV1 = z.infer<typeof portfolioDeletedV1>;
export type PositionChangedV1 = z.infer<typeof positionChangedV1>;
export type WatchlistItemChangedV1 = z.infer<typeof watchlistItemChangedV1>;
