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

/**
 * The user's watchlists after `after` (by id), whole, while their items add up to at most `itemBudget` (always
 * at least one watchlist): one page of `portfolios.watchlists.list`. `next_after` names the last one when more follow.
 */
export async function listWatchlistsPage(db: SqlClient, userId: string, after: number, itemBudget: number): Promise<{ data: Watchlist[]; next_after: number | null }> {
  const counted = await db.query<{ id: string; n: number }>(
    `select w.id::text, (select count(*) from watchlist_items i where i.watchlist_id = w.id)::int as n
       from watchlists w where w.user_id = $1 and w.id > $2 order by w.id`,
    [userId, after],
  );
  let items = 0;
  let take = 0;
  while (take < counted.length && (take === 0 || items + counted[take]!.n <= itemBudget)) items += counted[take++]!.n;
  if (take === 0) return { data: [], next_after: null };
  const last = num(counted[take - 1]!.id);
  const data = await listWatchlists(db, userId, { after, upTo: last });
  return { data, next_after: take < counted.length ? last : null };
}

export async function listWatchlists(db: SqlClient, userId: string, which: number | { after: number; upTo: number }): Promise<Watchlist[]> {
  const [from, to] = typeof which === 'number' ? [which - 1, which] : [which.after, which.upTo];
  const rows = await db.query<Row>(
    `select id::text, name, created_at from watchlists where user_id = $1 and id > $2 and id <= $3 order by watchlists.id`,
    [userId, from, to],
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
