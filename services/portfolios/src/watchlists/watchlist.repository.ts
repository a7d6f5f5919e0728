import type { AssetType, Watchlist, WatchlistItem } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import { iso, num } from '../common/sql-values.js';
import { assetSummaryOf } from '../deals/deal.repository.js';

type Row = Record<string, unknown>;

const ITEM_COLUMNS = `i.id::text, i.watchlist_id::text, i.asset_type, i.asset_id::text, i.created_at,
  a.ticker, a.name as asset_name, a.currency as asset_currency, a.current_rate, a.price_change_24h`;

function toItem(r: Row): WatchlistItem {
  return {
    id: num(r.id),
    watchlist_id: num(r.watchlist_id),
    assetable: { type: r.asset_type as AssetType, id: num(r.asset_id) },
    asset: assetSummaryOf(r),
    created_at: iso(r.created_at),
  };
}

async function itemsOf(db: SqlClient, watchlistIds: number[]): Promise<WatchlistItem[]> {
  if (watchlistIds.length === 0) return [];
  const rows = await db.query<Row>(
    `select ${ITEM_COLUMNS} from watchlist_items i
     left join assets a on a.asset_type = i.asset_type and a.asset_id = i.asset_id
     where i.watchlist_id = any($1::bigint[]) order by i.id`,
    [watchlistIds],
  );
  return rows.map(toItem);
}

export async function listWatchlists(db: SqlClient, userId: string, onlyId?: number): Promise<Watchlist[]> {
  const rows = await db.query<Row>(
    `select id::text, name, created_at from watchlists where user_id = $1 and ($2::bigint is null or id = $2) order by watchlists.id`,
    [userId, onlyId ?? null],
  );
  const items = await itemsOf(
    db,
    rows.map((r) => num(r.id)),
  );
  return rows.map((r) => {
    const id = num(r.id);
    return { id, name: String(r.name), items: items.filter((i) => i.watchlist_id === id), created_at: iso(r.created_at) };
  });
}

export async function findItem(db: SqlClient, watchlistId: number, itemId: number): Promise<WatchlistItem | undefined> {
  const rows = await db.query<Row>(
    `select ${ITEM_COLUMNS} from watchlist_items i
     left join assets a on a.asset_type = i.asset_type and a.asset_id = i.asset_id
     where i.watchlist_id = $1 and i.id = $2`,
    [watchlistId, itemId],
  );
  return rows[0] ? toItem(rows[0]) : undefined;
}

/** Locks the user's watchlist row for the transaction; undefined when it is not theirs. */
export async function lockWatchlist(tx: SqlClient, userId: string, id: number): Promise<boolean> {
  const rows = await tx.query('select 1 from watchlists where id = $1 and user_id = $2 for update', [id, userId]);
  return rows.length > 0;
}
