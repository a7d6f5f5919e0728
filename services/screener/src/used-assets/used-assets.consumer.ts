import { type BusEvent, PortfolioEventTypes, portfolioDeletedV1, positionChangedV1 } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, type Logger, type Tx, streamNameOf } from '@invest/platform';

export const USED_ASSETS_DURABLE = 'screener__used-assets';
/** `used_assets.source` of open portfolio positions; `ref` is the portfolio id. */
export const PORTFOLIO_SOURCE = 'portfolio';

/** `used_asset_changes.asset_id` of a change to the whole ref (PortfolioDeleted). */
const WHOLE_REF = 0;

/**
 * Keeps `used_assets` from the portfolios' events: PositionOpened adds (portfolio, asset), PositionClosed
 * removes it, PortfolioDeleted removes the portfolio's rows (deleting a portfolio ends its positions without
 * closing each). Other event types are ignored. Runs inside the consumer's inbox transaction.
 *
 * Order-independent: a portfolio's events share one stream (`portfolio-<id>`), so `streamPosition` orders
 * them. Per (portfolio, asset) the position of the last applied change is kept (`used_asset_changes`, asset 0
 * for PortfolioDeleted); a change at or before it (a PositionOpened retried after its PositionClosed) is ignored.
 */
export async function applyPortfolioEvent(event: BusEvent, tx: Tx, logger: Logger): Promise<void> {
  switch (event.type) {
    case PortfolioEventTypes.PositionOpened:
    case PortfolioEventTypes.PositionClosed: {
      const parsed = positionChangedV1.safeParse(event.data);
      if (!parsed.success) return skip(event, logger);
      const { portfolioId, asset } = parsed.data;
      const ref = String(portfolioId);
      if (!(await claimChange(tx, event, ref, asset.id, logger))) return;
      if (event.type === PortfolioEventTypes.PositionOpened) {
        await tx.query('insert into used_assets (source, ref, asset_id) values ($1, $2, $3) on conflict do nothing', [PORTFOLIO_SOURCE, ref, asset.id]);
      } else {
        await tx.query('delete from used_assets where source = $1 and ref = $2 and asset_id = $3', [PORTFOLIO_SOURCE, ref, asset.id]);
      }
      return;
    }
    case PortfolioEventTypes.PortfolioDeleted: {
      const parsed = portfolioDeletedV1.safeParse(event.data);
      if (!parsed.success) return skip(event, logger);
      const ref = String(parsed.data.portfolioId);
      if (!(await claimChange(tx, event, ref, WHOLE_REF, logger))) return;
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
    default:
      return;
  }
}

/**
 * Records `event` as the last change of (ref, asset) unless a change at the same or a later stream position
 * (of the asset, or of the whole ref) was applied already; false when the event is stale and must be ignored.
 * A per-ref advisory lock serialises concurrent instances, so a late open never races a deletion.
 */
async function claimChange(tx: Tx, event: BusEvent, ref: string, assetId: number, logger: Logger): Promise<boolean> {
  if (event.streamName !== `portfolio-${ref}`) {
    logger.warn({ eventId: event.id, type: event.type, streamName: event.streamName, ref }, 'portfolio event from an unexpected stream; ordered by its position anyway');
  }
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`used-assets:${PORTFOLIO_SOURCE}:${ref}`]);
  const [latest] = await tx.query<{ position: string | null }>(
    `select max(stream_position)::text as position from used_asset_changes
     where source = $1 and ref = $2 and asset_id = any($3::bigint[])`,
    [PORTFOLIO_SOURCE, ref, [assetId, WHOLE_REF]],
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
    [PORTFOLIO_SOURCE, ref, assetId, event.streamPosition],
  );
  return true;
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
