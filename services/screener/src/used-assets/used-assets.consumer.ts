import { assertNever, decodePortfolioEvent, type PortfolioEvent, PortfolioEventTypes } from '@invest/contracts';
import type { Db, Tx } from '@invest/platform/db/database';
import type { Logger } from '@invest/platform/logging/logger';
import { type Bus, eventStreamSource } from '@invest/platform/messaging/bus';
import { DurableConsumer } from '@invest/platform/messaging/durable-consumer';

export const USED_ASSETS_DURABLE = 'screener__used-assets';
/** `used_assets.source` of open portfolio positions; `ref` is the portfolio id. */
export const PORTFOLIO_SOURCE = 'portfolio';
/** `used_assets.source` of watchlist items; `ref` is the watchlist id. Not refreshed every minute (spec: open deals). */
export const WATCHLIST_SOURCE = 'watchlist';

/** `used_asset_changes.asset_id` of a change to the whole ref (PortfolioDeleted). */
const WHOLE_REF = 0;

/**
 * Keeps `used_assets` from the portfolios' events: PositionOpened adds (portfolio, asset), PositionClosed
 * removes it, PortfolioDeleted removes the portfolio's rows (deleting a portfolio ends its positions without
 * closing each); WatchlistItemAdded/Removed add and remove (watchlist, asset) (deleting a watchlist removes
 * each item with its own event). The other types need nothing here. Runs inside the consumer's inbox
 * transaction; events this release does not read never get here (the consumer leaves them for a later release).
 *
 * Order-independent: a portfolio's events share one stream (`portfolio-<id>`), a watchlist's too
 * (`watchlist-<id>`), so `streamPosition` orders them. Per (source, ref, asset) the position of the last applied
 * change is kept (`used_asset_changes`, asset 0 for PortfolioDeleted); a change at or before it (a PositionOpened
 * retried after its PositionClosed) is ignored.
 */
export async function applyPortfolioEvent(event: PortfolioEvent, tx: Tx, logger: Logger): Promise<void> {
  switch (event.type) {
    case PortfolioEventTypes.PositionOpened:
    case PortfolioEventTypes.PositionClosed: {
      const { portfolioId, asset } = event.data;
      const ref = String(portfolioId);
      if (!(await claimChange(tx, event, PORTFOLIO_SOURCE, ref, asset.id, logger))) return;
      if (event.type === PortfolioEventTypes.PositionOpened) {
        await tx.query('insert into used_assets (source, ref, asset_id) values ($1, $2, $3) on conflict do nothing', [PORTFOLIO_SOURCE, ref, asset.id]);
      } else {
        await tx.query('delete from used_assets where source = $1 and ref = $2 and asset_id = $3', [PORTFOLIO_SOURCE, ref, asset.id]);
      }
      return;
    }
    case PortfolioEventTypes.PortfolioDeleted: {
      const ref = String(event.data.portfolioId);
      if (!(await claimChange(tx, event, PORTFOLIO_SOURCE, ref, WHOLE_REF, logger))) return;
      await tx.query('delete from used_assets where source = $1 and ref = $2', [PORTFOLIO_SOURCE, ref]);
      // The ref's marker now covers its assets' older changes: their tombstones are no longer needed.
      await tx.query('delete from used_asset_changes where source = $1 and ref = $2 and asset_id <> $3 and stream_position < $4', [
        PORTFOLIO_SOURCE,
        ref,
        WHOLE_REF,
        event.streamPosition,
      ]);
      return;
    }
    case PortfolioEventTypes.WatchlistItemAdded:
    case PortfolioEventTypes.WatchlistItemRemoved: {
      const { watchlistId, asset } = event.data;
      const ref = String(watchlistId);
      if (!(await claimChange(tx, event, WATCHLIST_SOURCE, ref, asset.id, logger))) return;
      if (event.type === PortfolioEventTypes.WatchlistItemAdded) {
        await tx.query('insert into used_assets (source, ref, asset_id) values ($1, $2, $3) on conflict do nothing', [WATCHLIST_SOURCE, ref, asset.id]);
      } else {
        await tx.query('delete from used_assets where source = $1 and ref = $2 and asset_id = $3', [WATCHLIST_SOURCE, ref, asset.id]);
      }
      return;
    }
    case PortfolioEventTypes.WatchlistDeleted:
    case PortfolioEventTypes.PortfolioCreated:
      return;
    default:
      return assertNever(event, 'portfolio event');
  }
}

/**
 * Records `event` as the last change of (ref, asset) unless a change at the same or a later stream position
 * (of the asset, or of the whole ref) was applied already; false when the event is stale and must be ignored.
 * A per-ref advisory lock serialises concurrent instances, so a late open never races a deletion.
 */
async function claimChange(tx: Tx, event: PortfolioEvent, source: string, ref: string, assetId: number, logger: Logger): Promise<boolean> {
  if (event.streamName !== `${source}-${ref}`) {
    logger.warn({ eventId: event.id, type: event.type, streamName: event.streamName, ref }, 'portfolio event from an unexpected stream; ordered by its position anyway');
  }
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`used-assets:${source}:${ref}`]);
  const [latest] = await tx.query<{ position: string | null }>(
    `select max(stream_position)::text as position from used_asset_changes
     where source = $1 and ref = $2 and asset_id = any($3::bigint[])`,
    [source, ref, [assetId, WHOLE_REF]],
  );
  if (latest?.position != null && Number(latest.position) >= event.streamPosition) {
    logger.info(
      { eventId: event.id, type: event.type, ref, assetId, streamPosition: event.streamPosition, applied: Number(latest.position) },
      'portfolio event older than the change already applied; ignored',
    );
    return false;
  }
  await tx.query(
    `insert into used_asset_changes (source, ref, asset_id, stream_position) values ($1, $2, $3, $4)
     on conflict (source, ref, asset_id) do update set stream_position = excluded.stream_position`,
    [source, ref, assetId, event.streamPosition],
  );
  return true;
}

/** Durable consumer `screener__used-assets` on PORTFOLIOS_EVENTS, filter `portfolios.events.>`. */
export function createUsedAssetsConsumer(opts: {
  db: Db;
  bus: Bus;
  logger: Logger;
  ackWaitMs?: number;
  /** Delay before an event this release does not read is offered again (tests shorten it). */
  unknownRetryMs?: number;
}): DurableConsumer<PortfolioEvent> {
  return new DurableConsumer<PortfolioEvent>({
    db: opts.db,
    ...eventStreamSource(opts.bus, 'portfolios'),
    durableName: USED_ASSETS_DURABLE,
    filterSubject: 'portfolios.events.>',
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    ...(opts.unknownRetryMs ? { unknownRetryMs: opts.unknownRetryMs } : {}),
    decode: decodePortfolioEvent,
    handle: (event, tx) => applyPortfolioEvent(event, tx, opts.logger),
  });
}
