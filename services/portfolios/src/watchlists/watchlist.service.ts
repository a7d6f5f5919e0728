import {
  addWatchlistItemRequestSchema,
  type AssetType,
  createWatchlistRequestSchema,
  type DeletedReply,
  type ListWatchlistsReply,
  removeWatchlistItemRequestSchema,
  watchlistIdRequestSchema,
  type WatchlistItemReply,
  type WatchlistReply,
} from '@invest/contracts';
import { type Db, parseOrThrow, ServiceError } from '@invest/platform';
import { parseRequest } from '../common/request.js';
import { num } from '../common/sql-values.js';
import { recordWatchlistItems } from '../events/portfolio-events.recorder.js';
import type { AssetLookup } from '../prices/asset-lookup.service.js';
import { findItem, listWatchlists, lockWatchlist } from './watchlist.repository.js';

const WATCHLIST = 'Watchlist';
const ITEM = 'Watchlist item';

/** Watchlists and their items (asset references). Item changes are published as WatchlistItemAdded/Removed. */
export class WatchlistService {
  constructor(
    private readonly db: Db,
    private readonly assets: AssetLookup,
  ) {}

  async list(userId: string): Promise<ListWatchlistsReply> {
    return { data: await listWatchlists(this.db, userId) };
  }

  async create(userId: string, input: unknown): Promise<WatchlistReply> {
    const req = parseOrThrow(createWatchlistRequestSchema, input);
    const [row] = await this.db.query<{ id: string }>('insert into watchlists (user_id, name) values ($1, $2) returning id::text', [userId, req.name]);
    const [watchlist] = await listWatchlists(this.db, userId, num(row!.id));
    return { data: watchlist! };
  }

  async delete(userId: string, input: unknown): Promise<DeletedReply> {
    const { id } = parseRequest(watchlistIdRequestSchema, input, { id: WATCHLIST });
    await this.db.transaction(async (tx) => {
      if (!(await lockWatchlist(tx, userId, id))) throw ServiceError.notFound(WATCHLIST);
      // Every item leaves with the watchlist: consumers drop each membership.
      const items = await tx.query<{ id: string; asset_type: string; asset_id: string }>(
        'delete from watchlist_items where watchlist_id = $1 returning id::text, asset_type, asset_id::text',
        [id],
      );
      await tx.query('delete from watchlists where id = $1', [id]);
      await recordWatchlistItems(
        tx,
        'removed',
        id,
        items
          .sort((a, b) => num(a.id) - num(b.id))
          .map((i) => ({ itemId: num(i.id), userId, asset: { type: i.asset_type as AssetType, id: num(i.asset_id) } })),
      );
    });
    return { data: { id, deleted: true } };
  }

  async addItem(userId: string, input: unknown): Promise<WatchlistItemReply> {
    const req = parseRequest(addWatchlistItemRequestSchema, input, { watchlist_id: WATCHLIST });
    const owned = await this.db.query('select 1 from watchlists where id = $1 and user_id = $2', [req.watchlist_id, userId]);
    if (owned.length === 0) throw ServiceError.notFound(WATCHLIST);
    await this.assets.require(req.assetable, userId);
    const itemId = await this.db.transaction(async (tx) => {
      if (!(await lockWatchlist(tx, userId, req.watchlist_id))) throw ServiceError.notFound(WATCHLIST);
      const [row] = await tx.query<{ id: string }>(
        `insert into watchlist_items (watchlist_id, asset_type, asset_id) values ($1, $2, $3)
         on conflict (watchlist_id, asset_type, asset_id) do nothing returning id::text`,
        [req.watchlist_id, req.assetable.type, req.assetable.id],
      );
      if (!row) throw ServiceError.validation({ assetable: ['The asset is already in this watchlist.'] });
      const id = num(row.id);
      await recordWatchlistItems(tx, 'added', req.watchlist_id, [{ itemId: id, userId, asset: req.assetable }]);
      return id;
    });
    const item = await findItem(this.db, req.watchlist_id, itemId);
    if (!item) throw ServiceError.notFound(ITEM);
    return { data: item };
  }

  async removeItem(userId: string, input: unknown): Promise<DeletedReply> {
    const req = parseRequest(removeWatchlistItemRequestSchema, input, { watchlist_id: WATCHLIST, item_id: ITEM });
    await this.db.transaction(async (tx) => {
      if (!(await lockWatchlist(tx, userId, req.watchlist_id))) throw ServiceError.notFound(WATCHLIST);
      const item = await findItem(tx, req.watchlist_id, req.item_id);
      if (!item) throw ServiceError.notFound(ITEM);
      await tx.query('delete from watchlist_items where id = $1', [item.id]);
      await recordWatchlistItems(tx, 'removed', req.watchlist_id, [{ itemId: item.id, userId, asset: item.assetable }]);
    });
    return { data: { id: req.item_id, deleted: true } };
  }
}
