import { assertNever, decodePortfolioEvent, type PortfolioEvent, PortfolioEventTypes } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, ensureEventStream, type Logger, streamNameOf, type Tx } from '@invest/platform';
import { addMembers, removeMember, targetDeleted } from './membership.repository.js';

export const PORTFOLIO_EVENTS_DURABLE = 'alerts__portfolio-events';

/**
 * The local membership read model: which assets each portfolio (open positions) and watchlist (items)
 * holds, so a rate change finds the group notifications it can affect. A deleted target deactivates its
 * notifications.
 */
export async function handlePortfolioEvent(event: PortfolioEvent, tx: Tx, now: Date, logger: Logger): Promise<void> {
  switch (event.type) {
    case PortfolioEventTypes.PositionOpened:
      return addMembers(tx, { type: 'portfolio', id: event.data.portfolioId, userId: event.data.userId }, [event.data.asset]);
    case PortfolioEventTypes.PositionClosed:
      return removeMember(tx, { type: 'portfolio', id: event.data.portfolioId }, event.data.asset);
    case PortfolioEventTypes.WatchlistItemAdded:
      return addMembers(tx, { type: 'watchlist', id: event.data.watchlistId, userId: event.data.userId }, [event.data.asset]);
    case PortfolioEventTypes.WatchlistItemRemoved:
      return removeMember(tx, { type: 'watchlist', id: event.data.watchlistId }, event.data.asset);
    case PortfolioEventTypes.PortfolioDeleted: {
      const deactivated = await targetDeleted(tx, { type: 'portfolio', id: event.data.portfolioId }, now);
      logger.info({ portfolioId: event.data.portfolioId, deactivated }, 'portfolio deleted upstream; its notifications are deactivated');
      return;
    }
    case PortfolioEventTypes.WatchlistDeleted: {
      const deactivated = await targetDeleted(tx, { type: 'watchlist', id: event.data.watchlistId }, now);
      logger.info({ watchlistId: event.data.watchlistId, deactivated }, 'watchlist deleted upstream; its notifications are deactivated');
      return;
    }
    case PortfolioEventTypes.PortfolioCreated:
      return;
    default:
      return assertNever(event, 'portfolio event');
  }
}

/** Durable consumer `alerts__portfolio-events` on PORTFOLIOS_EVENTS (every type). */
export function createPortfolioEventsConsumer(opts: { db: Db; bus: Bus; logger: Logger; clock: () => Date }): DurableConsumer<PortfolioEvent> {
  return new DurableConsumer<PortfolioEvent>({
    db: opts.db,
    bus: opts.bus,
    stream: streamNameOf(opts.bus, 'portfolios'),
    ensureStream: () => ensureEventStream(opts.bus, 'portfolios'),
    durableName: PORTFOLIO_EVENTS_DURABLE,
    logger: opts.logger,
    decode: decodePortfolioEvent,
    handle: (event, tx) => handlePortfolioEvent(event, tx, opts.clock(), opts.logger),
  });
}
