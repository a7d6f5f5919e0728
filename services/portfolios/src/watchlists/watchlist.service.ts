import {
  addWatchlistItemRequestSchema,
  type AssetType,
  createWatchlistRequestSchema,
  type DeletedReply,
  type ListWatchlistsPageReply,
  listWatchlistsRequestSchema,
  removeWatchlistItemRequestSchema,
  watchlistIdRequestSchema,
  type WatchlistItemReply,
  type WatchlistReply,
  Subjects,
} from '@invest/contracts';
import { type Db, idempotent, lockQuotaOwner, parseOrThrow, requestFingerprint, requireBelowQuota, ServiceError } from '@invest/platform';
import { checkAssetForUse } from '../asset-uses/asset-use.js';
import { DEFAULT_LIMITS, type PortfoliosLimits } from '../common/limits.js';
import { parseRequest } from '../common/request.js';
import { num } from '../common/sql-values.js';
import { recordWatchlistDeleted, recordWatchlistItems } from '../events/portfolio-events.recorder.js';
import type { AssetLookup } from '../prices/asset-lookup.service.js';
import { findItem, listWatchlists, listWatchlistsPage, lockWatchlist } from './watchlist.repository.js';

const WATCHLIST = 'Watchlist';
const ITEM = 'Watchlist item';

/** Watchlists and their items (asset references). Item changes are published as WatchlistItemAdded/Removed. */
export class WatchlistService {
  constructor(
    private readonly db: Db,
    private readonly assets: AssetLookup,
    private readonly limits: Pick<PortfoliosLimits, 'watchlistsPerUser' | 'itemsPerWatchlist'> = DEFAULT_LIMITS,
  ) {}

  /**
   * One page of the user's watchlists (`portfolios.watchlists.list`): whole watchlists, up to one watchlist's
   * most items (`itemsPerWatchlist`), so a page stays well under NATS's 1 MB however many the user has.
   */
  async list(userId: string, input: unknown): Promise<ListWatchlistsPageReply> {
    const { after } = parseOrThrow(listWatchlistsRequestSchema, input ?? {});
    return listWatchlistsPage(this.db, userId, after ?? 0, this.limits.itemsPerWatchlist);
  }

  /** `idempotencyKey`: a repeat with the same key and request answers the first create's reply (see `idempotent`). */
  async create(userId: string, input: unknown, idempotencyKey?: string): Promise<WatchlistReply> {
    const req = parseOrThrow(createWatchlistRequestSchema, input);
    const subject = Subjects.portfolios.watchlistsCreate;
    const limit = this.limits.watchlistsPerUser;
    return idempotent<WatchlistReply>(this.db, { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, req) }, (finish) =>
      this.db.transaction(async (tx) => {
        await lockQuotaOwner(tx, `watchlists:${userId}`);
        await requireBelowQuota(tx, {
          limit,
          rowsSql: 'select 1 from watchlists where user_id = $1',
          params: [userId],
          field: 'watchlists',
          message: `You can have at most ${limit} watchlists (the watchlists per user limit).`,
        });
        const [row] = await tx.query<{ id: string }>('insert into watchlists (user_id, name) values ($1, $2) returning id::text', [userId, req.name]);
        const [watchlist] = await listWatchlists(tx, userId, num(row!.id));
        return finish(tx, { data: watchlist! });
      }),
    );
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
      await recordWatchlistDeleted(tx, { watchlistId: id, userId });
    });
    return { data: { id, deleted: true } };
  }

  /** `idempotencyKey`: as in create; a repeat answers before any check (the watchlist may be gone by now). */
  async addItem(userId: string, input: unknown, idempotencyKey?: string): Promise<WatchlistItemReply> {
    const req = parseRequest(addWatchlistItemRequestSchema, input, { watchlist_id: WATCHLIST });
    const subject = Subjects.portfolios.watchlistItemsCreate;
    const limit = this.limits.itemsPerWatchlist;
    return idempotent<WatchlistItemReply>(this.db, { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, req) }, async (finish) => {
      const owned = await this.db.query('select 1 from watchlists where id = $1 and user_id = $2', [req.watchlist_id, userId]);
      if (owned.length === 0) throw ServiceError.notFound(WATCHLIST);
      // Confirmed in the transaction: a custom asset's deletion racing this add sees it, or refuses it (asset-use.ts).
      const use = await checkAssetForUse(this.db, this.assets, req.assetable, userId);
      return this.db.transaction(async (tx) => {
        if (!(await lockWatchlist(tx, userId, req.watchlist_id))) throw ServiceError.notFound(WATCHLIST);
        await use.confirm(tx);
        // Under the watchlist's row lock: concurrent adds cannot overshoot.
        await requireBelowQuota(tx, {
          limit,
          rowsSql: 'select 1 from watchlist_items where watchlist_id = $1',
          params: [req.watchlist_id],
          field: 'watchlist_items',
          message: `A watchlist can have at most ${limit} items (the items per watchlist limit).`,
        });
        const [row] = await tx.query<{ id: string }>(
          `insert into watchlist_items (watchlist_id, asset_type, asset_id) values ($1, $2, $3)
           on conflict (watchlist_id, asset_type, asset_id) do nothing returning id::text`,
          [req.watchlist_id, req.assetable.type, req.assetable.id],
        );
        if (!row) throw ServiceError.validation({ assetable: ['The asset is already in this watchlist.'] });
        const id = num(row.id);
        await recordWatchlistItems(tx, 'added', req.watchlist_id, [{ itemId: id, userId, asset: req.assetable }]);
        const item = await findItem(tx, req.watchlist_id, id);
        if (!item) throw ServiceError.notFound(ITEM);
        return finish(tx, { data: item });
      });
    });
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
