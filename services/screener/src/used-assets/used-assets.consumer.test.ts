import { randomUUID } from 'node:crypto';
import { type BusEvent, decodePortfolioEvent, isUnknownEvent } from '@invest/contracts';
import type { Db } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { useTestDatabase } from '@invest/platform/testing/index';
import { beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../migrations/index.js';
import { applyPortfolioEvent } from './used-assets.consumer.js';

const logger = createLogger('screener-used-assets-test', 'silent');

describe('screener__used-assets effects', () => {
  let db: Db;
  useTestDatabase('scr_used', migrations, (opened) => (db = opened));
  beforeEach(async () => {
    await db.query('truncate used_assets');
  });

  const event = (type: string, portfolioId: number, streamPosition: number, assetId?: number): BusEvent => ({
    id: randomUUID(),
    type,
    streamName: `portfolio-${portfolioId}`,
    streamPosition,
    recordedAt: new Date().toISOString(),
    data: { version: 1, portfolioId, userId: 'u1', ...(assetId === undefined ? {} : { asset: { type: 'share', id: assetId } }) },
    metadata: {},
  });
  const apply = (e: BusEvent) => {
    const decoded = decodePortfolioEvent(e);
    if (isUnknownEvent(decoded)) throw new Error(decoded.unknownEvent);
    return db.transaction((tx) => applyPortfolioEvent(decoded, tx, logger));
  };
  const used = async () => (await db.query<{ ref: string; asset_id: string }>('select ref, asset_id::text from used_assets order by ref, asset_id')).map((r) => `${r.ref}/${r.asset_id}`);

  it('applies opens and closes in order', async () => {
    await apply(event('PositionOpened', 101, 2, 5));
    await apply(event('PositionOpened', 101, 3, 6));
    expect(await used()).toEqual(['101/5', '101/6']);
    await apply(event('PositionClosed', 101, 4, 5));
    expect(await used()).toEqual(['101/6']);
  });

  it('ignores a PositionOpened delivered after the later PositionClosed of the same position (a retry)', async () => {
    await apply(event('PositionClosed', 102, 4, 7));
    await apply(event('PositionOpened', 102, 3, 7));
    expect(await used()).toEqual([]);
    // A later open of the same asset still counts, and an older close does not undo it.
    await apply(event('PositionOpened', 102, 9, 7));
    await apply(event('PositionClosed', 102, 8, 7));
    expect(await used()).toEqual(['102/7']);
    // Other portfolios and assets are independent.
    await apply(event('PositionOpened', 103, 1, 7));
    expect(await used()).toEqual(['102/7', '103/7']);
  });

  it('ignores a PositionOpened older than the PortfolioDeleted already applied', async () => {
    await apply(event('PositionOpened', 104, 2, 8));
    await apply(event('PortfolioDeleted', 104, 6));
    await apply(event('PositionOpened', 104, 5, 9));
    expect(await used()).toEqual([]);
  });

  const itemEvent = (type: string, watchlistId: number, streamPosition: number, assetId: number): BusEvent => ({
    id: randomUUID(),
    type,
    streamName: `watchlist-${watchlistId}`,
    streamPosition,
    recordedAt: new Date().toISOString(),
    data: { version: 1, watchlistId, itemId: streamPosition, userId: 'u1', asset: { type: 'custom_asset', id: assetId } },
    metadata: {},
  });
  const usedBy = async () =>
    (await db.query<{ source: string; ref: string; asset_id: string }>('select source, ref, asset_id::text from used_assets order by source, ref, asset_id')).map(
      (r) => `${r.source}:${r.ref}/${r.asset_id}`,
    );

  it('keeps watchlist items apart from portfolio positions, in stream order', async () => {
    await apply(event('PositionOpened', 201, 2, 9));
    await apply(itemEvent('WatchlistItemAdded', 201, 1, 9));
    await apply(itemEvent('WatchlistItemAdded', 201, 2, 10));
    expect(await usedBy()).toEqual(['portfolio:201/9', 'watchlist:201/10', 'watchlist:201/9']);
    await apply(itemEvent('WatchlistItemRemoved', 201, 3, 9));
    // A retried add older than the removal is ignored.
    await apply(itemEvent('WatchlistItemAdded', 201, 1, 9));
    expect(await usedBy()).toEqual(['portfolio:201/9', 'watchlist:201/10']);
  });

  it('applies a redelivered event only once (same position)', async () => {
    await apply(event('PositionOpened', 105, 2, 8));
    await apply(event('PositionClosed', 105, 3, 8));
    await apply(event('PositionClosed', 105, 3, 8));
    await apply(event('PositionOpened', 105, 2, 8));
    expect(await used()).toEqual([]);
  });
});
