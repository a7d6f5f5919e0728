import type { AssetInfo, AssetRef, AssetType, AssetUpdatedV1, RateChange } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import { iso, num, numOrNull, strOrNull } from '../common/sql-values.js';
import { type AssetQuote, assetKey } from '../statistics/statistics.types.js';

/** A row of the local asset catalog (the price table). */
export interface CatalogAsset extends AssetQuote {
  rateAsOf: string | null;
  priceSeq: number;
  /** False when the asset is known only from RatesUpdated (no name yet). */
  described: boolean;
}

const COLUMNS = `asset_type, asset_id::text, ticker, name, currency, current_rate, price_change_24h, rate_as_of, price_seq::text,
  catalog_checked_at is not null as described`;

type Row = Record<string, unknown>;

function toAsset(r: Row): CatalogAsset {
  return {
    type: r.asset_type as AssetType,
    id: num(r.asset_id),
    ticker: String(r.ticker),
    name: strOrNull(r.name),
    currency: strOrNull(r.currency),
    currentRate: numOrNull(r.current_rate),
    priceChangePercentage24h: numOrNull(r.price_change_24h),
    rateAsOf: r.rate_as_of === null || r.rate_as_of === undefined ? null : iso(r.rate_as_of),
    priceSeq: num(r.price_seq),
    described: r.described === true,
  };
}

/** Looks assets up by reference; the map is keyed by `assetKey`. */
export async function findAssets(db: SqlClient, refs: readonly AssetRef[]): Promise<Map<string, CatalogAsset>> {
  if (refs.length === 0) return new Map();
  const rows = await db.query<Row>(
    `select ${COLUMNS} from assets a
     join unnest($1::text[], $2::bigint[]) as r(t, i) on a.asset_type = r.t and a.asset_id = r.i`,
    [refs.map((r) => r.type), refs.map((r) => r.id)],
  );
  return new Map(rows.map((r) => toAsset(r)).map((a) => [assetKey(a), a]));
}

/** A rate from the screener replaces the held one when it has a rate and is newer (a held rate without a time loses). */
const newerRate = `(excluded.current_rate is not null and (assets.current_rate is null or assets.rate_as_of is null
  or (excluded.rate_as_of is not null and excluded.rate_as_of > assets.rate_as_of)))`;

/**
 * Stores what the screener says about assets. The description always wins (the screener owns it); the
 * rate only when it is newer than the one held (or none is held).
 */
export async function upsertFromScreener(db: SqlClient, infos: readonly AssetInfo[]): Promise<void> {
  if (infos.length === 0) return;
  await db.query(
    `insert into assets (asset_type, asset_id, ticker, name, currency, current_rate, price_change_24h, rate_as_of, catalog_checked_at)
     select t, i, tk, n, c, r, p, a, now()
     from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[], $8::timestamptz[])
       as u(t, i, tk, n, c, r, p, a)
     on conflict (asset_type, asset_id) do update set
       ticker = excluded.ticker,
       name = excluded.name,
       currency = coalesce(excluded.currency, assets.currency),
       current_rate = case when ${newerRate} then excluded.current_rate else assets.current_rate end,
       price_change_24h = case when ${newerRate} then excluded.price_change_24h else assets.price_change_24h end,
       rate_as_of = case when ${newerRate} then excluded.rate_as_of else assets.rate_as_of end,
       catalog_checked_at = now(),
       updated_at = now(),
       price_seq = case
         when ${newerRate}
           or assets.ticker is distinct from excluded.ticker or assets.name is distinct from excluded.name
           or assets.currency is distinct from coalesce(excluded.currency, assets.currency)
         then nextval('asset_price_seq') else assets.price_seq end`,
    [
      infos.map((a) => a.type),
      infos.map((a) => a.id),
      infos.map((a) => a.ticker),
      infos.map((a) => a.name),
      infos.map((a) => a.currency),
      infos.map((a) => a.current_rate),
      infos.map((a) => a.price_change_percentage_24h),
      infos.map((a) => (a.current_rate === null ? null : (a.rate_updated_at ?? null))),
    ],
  );
}

/**
 * Applies a RatesUpdated batch: one statement, keeping only rates newer (by `asOf`) than the held ones.
 * Assets not yet known are added (described later by the screener when a deal or watchlist needs them).
 * Returns how many rows changed.
 */
export async function applyRates(db: SqlClient, rates: readonly RateChange[]): Promise<number> {
  // One row per asset (the newest asOf) - a statement may not touch the same row twice.
  const newest = new Map<string, RateChange>();
  for (const r of rates) {
    const key = assetKey({ type: r.assetType, id: r.assetId });
    const held = newest.get(key);
    if (!held || Date.parse(r.asOf) > Date.parse(held.asOf)) newest.set(key, r);
  }
  const list = [...newest.values()];
  const changed = await db.query(
    `insert into assets (asset_type, asset_id, ticker, currency, current_rate, price_change_24h, rate_as_of)
     select * from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::timestamptz[])
     on conflict (asset_type, asset_id) do update set
       ticker = excluded.ticker,
       currency = coalesce(excluded.currency, assets.currency),
       current_rate = excluded.current_rate,
       price_change_24h = excluded.price_change_24h,
       rate_as_of = excluded.rate_as_of,
       price_seq = nextval('asset_price_seq'),
       updated_at = now()
     where assets.rate_as_of is null or excluded.rate_as_of > assets.rate_as_of
     returning 1`,
    [
      list.map((r) => r.assetType),
      list.map((r) => r.assetId),
      list.map((r) => r.ticker),
      list.map((r) => r.currency),
      list.map((r) => r.rate),
      list.map((r) => r.priceChangePercentage24h),
      list.map((r) => r.asOf),
    ],
  );
  return changed.length;
}

/**
 * Applies an AssetUpdated (the screener's description after a change) to a catalog row the service holds, unless
 * a description at the same or a later `position` (of the asset's event stream) was applied already. The price
 * number moves on, so cached statistics built with the old ticker, name or currency are stale; deals and
 * watchlists read the catalog directly. An asset not held is left alone: it is described when first needed.
 * Returns whether the row changed.
 */
export async function applyDescription(db: SqlClient, d: Omit<AssetUpdatedV1, 'version'>, position: number): Promise<boolean> {
  const rows = await db.query(
    `update assets set ticker = $3, name = $4, currency = coalesce($5, currency), description_position = $6,
       catalog_checked_at = now(), updated_at = now(), price_seq = nextval('asset_price_seq')
     where asset_type = $1 and asset_id = $2 and (description_position is null or description_position < $6)
     returning 1`,
    [d.assetType, d.assetId, d.ticker, d.name, d.currency, position],
  );
  return rows.length > 0;
}
