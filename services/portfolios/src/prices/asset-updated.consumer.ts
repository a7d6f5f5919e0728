import { ASSET_UPDATED, assetUpdatedV1Schema, type BusEvent } from '@invest/contracts';
import { type Bus, type Db, DurableConsumer, type Logger, streamNameOf, type Tx } from '@invest/platform';
import { applyDescription } from './asset-catalog.repository.js';

export const ASSET_UPDATED_DURABLE = 'portfolios__asset-updated';

/** Applies one AssetUpdated to the local asset catalog (inside the consumer's inbox transaction), ordered by its stream position. */
export async function handleAssetUpdated(event: BusEvent, tx: Tx, logger: Logger): Promise<void> {
  if (event.type !== ASSET_UPDATED) return;
  const parsed = assetUpdatedV1Schema.safeParse(event.data);
  if (!parsed.success) {
    logger.warn({ eventId: event.id, issues: parsed.error.issues.slice(0, 5) }, 'AssetUpdated not understood; skipped');
    return;
  }
  const { version: _version, ...description } = parsed.data;
  const changed = await applyDescription(tx, description, event.streamPosition);
  logger.debug({ eventId: event.id, assetType: description.assetType, assetId: description.assetId, changed }, 'asset description applied');
}

/** Durable consumer `portfolios__asset-updated` on the market stream, filter `market.events.AssetUpdated`. */
export function createAssetUpdatedConsumer(opts: { db: Db; bus: Bus; logger: Logger; ackWaitMs?: number }): DurableConsumer {
  return new DurableConsumer({
    db: opts.db,
    bus: opts.bus,
    stream: streamNameOf(opts.bus, 'market'),
    durableName: ASSET_UPDATED_DURABLE,
    filterSubject: `market.events.${ASSET_UPDATED}`,
    logger: opts.logger,
    ...(opts.ackWaitMs ? { ackWaitMs: opts.ackWaitMs } : {}),
    handle: (event, tx) => handleAssetUpdated(event, tx, opts.logger),
  });
}
