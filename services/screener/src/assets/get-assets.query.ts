import type { AssetInfo, AssetRef, GetAssetsReply } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

/** Assets by (type, id) reference, shaped as the contract's AssetInfo; unknown references (and other users' custom assets, and one being deleted) are left out. */
export const GET_ASSETS_SQL = `
  select json_build_object(
           'id', a.id,
           'type', a.type,
           'ticker', a.ticker,
           'name', a.name,
           'currency', a.currency,
           'current_rate', a.current_rate,
           'price_change_percentage_24h', a.price_change_percentage_24h,
           'rate_updated_at', to_char(a.rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
         ) as asset
  from assets a
  join unnest($1::text[], $2::bigint[]) as r(type, id) on a.id = r.id and a.type = r.type
  where a.type <> 'custom_asset'
     or exists (select 1 from custom_assets ca where ca.asset_id = a.id and ca.owner_user_id = $3 and ca.deleting_since is null)
  order by a.id`;

/**
 * A custom asset is described only to its owner (`userId`, the request's `meta.userId`); for anyone else, and
 * without a user, it does not exist.
 */
export async function getAssets(db: SqlClient, refs: readonly AssetRef[], userId?: string): Promise<GetAssetsReply> {
  const rows = await db.query<{ asset: AssetInfo }>(GET_ASSETS_SQL, [refs.map((r) => r.type), refs.map((r) => r.id), userId ?? null]);
  // The same reference asked twice is answered once.
  const seen = new Set<number>();
  return { data: rows.map((r) => r.asset).filter((a) => !seen.has(a.id) && seen.add(a.id)) };
}
