import {
  type AssetRef,
  eventSubject,
  PortfolioEventTypes,
  portfolioCreatedV1Schema,
  portfolioDeletedV1Schema,
  positionChangedV1Schema,
  watchlistItemChangedV1Schema,
  watchlistDeletedV1Schema,
} from '@invest/contracts';
import { appendToStream, type RecordedEvent, type Tx } from '@invest/platform';

/** Event store streams of this service. */
export const portfolioStream = (portfolioId: number) => `portfolio-${portfolioId}`;
export const watchlistStream = (watchlistId: number) => `watchlist-${watchlistId}`;

/*
 * Each function appends inside the caller's transaction, so the change and its event commit together;
 * the EventRelay publishes them afterwards. Data is checked against the contract before it is stored.
 */

export function recordPortfolioCreated(tx: Tx, p: { portfolioId: number; userId: string; name: string; currencyCode: string }) {
  const data = portfolioCreatedV1Schema.parse({ version: 1, ...p });
  return appendToStream(tx, portfolioStream(p.portfolioId), [{ type: PortfolioEventTypes.PortfolioCreated, data }], 'no_stream');
}

export function recordPortfolioDeleted(tx: Tx, p: { portfolioId: number; userId: string }) {
  const data = portfolioDeletedV1Schema.parse({ version: 1, ...p });
  return appendToStream(tx, portfolioStream(p.portfolioId), [{ type: PortfolioEventTypes.PortfolioDeleted, data }]);
}

export function recordPositionChange(tx: Tx, kind: 'opened' | 'closed', p: { portfolioId: number; userId: string; asset: AssetRef }) {
  const data = positionChangedV1Schema.parse({ version: 1, ...p, asset: { type: p.asset.type, id: p.asset.id } });
  const type = kind === 'opened' ? PortfolioEventTypes.PositionOpened : PortfolioEventTypes.PositionClosed;
  return appendToStream(tx, portfolioStream(p.portfolioId), [{ type, data }]);
}

export function recordWatchlistItems(
  tx: Tx,
  kind: 'added' | 'removed',
  watchlistId: number,
  items: { itemId: number; userId: string; asset: AssetRef }[],
) {
  const type = kind === 'added' ? PortfolioEventTypes.WatchlistItemAdded : PortfolioEventTypes.WatchlistItemRemoved;
  const events = items.map((i) => ({
    type,
    data: watchlistItemChangedV1Schema.parse({ version: 1, watchlistId, itemId: i.itemId, userId: i.userId, asset: { type: i.asset.type, id: i.asset.id } }),
  }));
  return events.length ? appendToStream(tx, watchlistStream(watchlistId), events) : Promise.resolve(null);
}

export function recordWatchlistDeleted(tx: Tx, p: { watchlistId: number; userId: string }) {
  const data = watchlistDeletedV1Schema.parse({ version: 1, ...p });
  return appendToStream(tx, watchlistStream(p.watchlistId), [{ type: PortfolioEventTypes.WatchlistDeleted, data }]);
}

const PUBLIC_TYPES = new Set<string>(Object.values(PortfolioEventTypes));

/** Relay routing: `portfolios.events.<Type>.<portfolioId|watchlistId>`; anything else stays private. */
export function portfolioEventSubject(event: RecordedEvent): string | null {
  if (!PUBLIC_TYPES.has(event.type)) return null;
  const data = event.data as { portfolioId?: number; watchlistId?: number };
  const id = data.portfolioId ?? data.watchlistId;
  return eventSubject('portfolios', event.type, id);
}
