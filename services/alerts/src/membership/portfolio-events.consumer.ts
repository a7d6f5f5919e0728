import { assertNever, decodePortfolioEvent, type PortfolioEvent, PortfolioEventTypes } from '@invest/contracts';
import type { Db, Tx } from '@invest/platform/db/database';
import type { Logger } from '@invest/platform/logging/logger';
import { type Bus, eventStreamSource } from '@invest/platform/messaging/bus';
import { DurableConsumer } from '@invest/platform/messaging/durable-consumer';
import { addMembers, claimMembershipChange, removeMember, targetDeleted } from './membership.repository.js';

export const PORTFOLIO_EVENTS_DURABLE = 'alerts__portfolio-events';

/**
 * The local membership read model: which assets each portfolio (open positions) and watchlist (items)
 * holds, so a rate change finds the group notifications it can affect. A deleted target deactivates its
 * notifications. Order-independent: a change older (by its stream position) than the last one applied for
 * the same target and asset is ignored (two instances and redeliveries do not keep the stream's order).
 */
export async function handlePortfolioEvent(event: PortfolioEvent, tx: Tx, now: Date, logger: Logger): Promise<void> {
  switch (event.type) {
    case PortfolioEventTypes.PositionOpened:
    case PortfolioEventTypes.PositionClosed:
    case PortfolioEventTypes.WatchlistItemAdded:
    case PortfolioEventTypes.WatchlistItemRemoved: {
      const target =
        event.type === PortfolioEventTypes.PositionOpened || event.type === PortfolioEventTypes.PositionClosed
          ? { type: 'portfolio' as const, id: event.data.portfolioId, userId: event.data.userId }
          : { type: 'watchlist' as const, id: event.data.watchlistId, userId: event.data.userId };
      if (!(await claimMembershipChange(tx, target, event.data.asset, event.streamPosition))) {
        logger.info({ eventId: event.id, type: event.type, streamPosition: event.streamPosition }, 'membership change older than the one applied; ignored');
        return;
      }
      const adds = event.type === PortfolioEventTypes.PositionOpened || event.type === PortfolioEventTypes.WatchlistItemAdded;
      return adds ? addMembers(tx, target, [event.data.asset]) : removeMember(tx, target, event.data.asset);
    }
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
    ...eventStreamSource(opts.bus, 'portfolios'),
    durableName: PORTFOLIO_EVENTS_DURABLE,
    logger: opts.logger,
    decode: decodePortfolioEvent,
    handle: (event, tx) => handlePortfolioEvent(event, tx, opts.clock(), opts.logger),
  });
}
