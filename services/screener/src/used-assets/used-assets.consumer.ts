import { type BusEvent, PortfolioEventTypes, portfolioDeletedV1, positionChangedV1 } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, type Logger, type Tx, streamNameOf } from '@invest/platform';

export const USED_ASSETS_DURABLE = 'screener__used-assets';
/** `used_assets.source` of open portfolio positions; `ref` is the portfolio id. */
export const PORTFOLIO_SOURCE = 'portfolio';

/**
 * Keeps `used_assets` from the portfolios' events: PositionOpened adds (portfolio, asset), PositionClosed
 * removes it, PortfolioDeleted removes the portfolio's rows (deleting a portfolio ends its positions without
 * closing each). Other event types are ignored. Runs inside the consumer's inbox transaction.
 */
export async function applyPortfolioEvent(event: BusEvent, tx: Tx, logger: Logger): Promise<void> {
  switch (event.type) {
    case PortfolioEventTypes.PositionOpened:
    case PortfolioEventTypes.PositionClosed: {
      const parsed = positionChangedV1.safeParse(event.data);
      if (!parsed.success) return skip(event, logger);
      const { portfolioId, asset } = parsed.data;
      if (event.type === PortfolioEventTypes.PositionOpened) {
        await tx.query('insert into used_assets (source, ref, asset_id) values ($1, $2, $3) on conflict do nothing', [PORTFOLIO_SOURCE, String(portfolioId), asset.id]);
      } else {
        await tx.query('delete from used_assets where source = $1 and ref = $2 and asset_id = $3', [PORTFOLIO_SOURCE, String(portfolioId), asset.id]);
      }
      return;
    }
    case PortfolioEventTypes.PortfolioDeleted: {
      const parsed = portfolioDeletedV1.safeParse(event.data);
      if (!parsed.success) return skip(event, logger);
      await tx.query('delete from used_assets where source = $1 and ref = $2', [PORTFOLIO_SOURCE, String(parsed.data.portfolioId)]);
      return;
    }
    default:
      return;
  }
}

function skip(event: BusEvent, logger: Logger): void {
  // A version this release does not read: recorded in the inbox as handled, and said so.
  logger.warn({ eventId: event.id, type: event.type }, 'portfolio event not understood; skipped');
}

/** Durable consumer `screener__used-assets` on PORTFOLIOS_EVENTS, filter `portfolios.events.>`. */
export function createUsedAssetsConsumer(opts: { db: Db; bus: Bus; logger: Logger; ackWaitMs?: number }): DurableConsumer {
  return new DurableConsumer({
    db: opts.db,
    bus: opts.bus,
    stream: streamNameOf(opts.bus, 'portfolios'),
    durableName: USED_ASSETS_DURABLE,
    filterSubject: 'portfolios.events.>',
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    handle: (event, tx) => applyPortfolioEvent(event, tx, opts.logger),
  });
}
