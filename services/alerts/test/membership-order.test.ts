/**
 * The membership read model does not depend on delivery order: with two instances and redeliveries, a
 * WatchlistItemAdded or PositionOpened can arrive after the later change that undid it (found by the chaos
 * test: an alerts instance killed holding an unacked add, the other instance applying the remove first).
 * Stream positions order a target's changes; a stale one is ignored.
 */
import { randomUUID } from 'node:crypto';
import type { PortfolioEvent } from '@invest/contracts';
import { type Db, openDatabase } from '@invest/platform/db/database';
import { createLogger } from '@invest/platform/logging/logger';
import { createTestDatabase } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlePortfolioEvent } from '../src/membership/portfolio-events.consumer.js';
import { migrations } from '../src/migrations/index.js';

let db: Db;
let drop: () => Promise<void>;
const logger = createLogger('test', 'silent');
const asset = { type: 'share' as const, id: 7 };

beforeAll(async () => {
  const t = await createTestDatabase('alerts_member_order');
  drop = t.drop;
  db = await openDatabase({ url: t.url, migrations, logger });
});
afterAll(async () => {
  await db?.close();
  await drop?.();
});

function event(type: PortfolioEvent['type'], streamName: string, streamPosition: number, data: Record<string, unknown>): PortfolioEvent {
  return { id: randomUUID(), type, streamName, streamPosition, recordedAt: new Date().toISOString(), metadata: {}, data: { version: 1, userId: 'u', asset, ...data } } as PortfolioEvent;
}
const apply = (e: PortfolioEvent) => db.transaction((tx) => handlePortfolioEvent(e, tx, new Date(), logger));
const members = async (type: string, id: number) =>
  (await db.query<{ asset_id: string }>('select asset_id::text from memberships where target_type = $1 and target_id = $2', [type, id])).map((r) => Number(r.asset_id));

describe('membership changes applied out of order', () => {
  it('a watchlist item added, then removed: the add delivered last is ignored', async () => {
    const added = event('WatchlistItemAdded', 'watchlist-1', 1, { watchlistId: 1, itemId: 10 });
    const removed = event('WatchlistItemRemoved', 'watchlist-1', 2, { watchlistId: 1, itemId: 10 });
    await apply(removed);
    await apply(added);
    expect(await members('watchlist', 1)).toEqual([]);
    // Added again later: a newer position applies.
    await apply(event('WatchlistItemAdded', 'watchlist-1', 3, { watchlistId: 1, itemId: 11 }));
    expect(await members('watchlist', 1)).toEqual([7]);
  });

  it('a position opened, closed and opened again, delivered in any order, ends as the last change says', async () => {
    const opened = event('PositionOpened', 'portfolio-2', 2, { portfolioId: 2 });
    const closed = event('PositionClosed', 'portfolio-2', 3, { portfolioId: 2 });
    const reopened = event('PositionOpened', 'portfolio-2', 4, { portfolioId: 2 });
    await apply(closed);
    await apply(opened);
    expect(await members('portfolio', 2)).toEqual([]);
    await apply(reopened);
    await apply(opened);
    expect(await members('portfolio', 2)).toEqual([7]);
    await apply(event('PositionClosed', 'portfolio-2', 5, { portfolioId: 2 }));
    expect(await members('portfolio', 2)).toEqual([]);
  });

  it('in order, every change applies', async () => {
    await apply(event('WatchlistItemAdded', 'watchlist-3', 1, { watchlistId: 3, itemId: 20 }));
    expect(await members('watchlist', 3)).toEqual([7]);
    await apply(event('WatchlistItemRemoved', 'watchlist-3', 2, { watchlistId: 3, itemId: 20 }));
    expect(await members('watchlist', 3)).toEqual([]);
  });
});
