import { type AssetUse, type GetAssetUsesReply, getAssetUsesRequestSchema } from '@invest/contracts';
import { type Db, parseOrThrow } from '@invest/platform';
import { num } from '../common/sql-values.js';
import { lockAssetUse } from './asset-use-lock.js';

/**
 * Where an asset is in use: portfolios with an open position in it, watchlists listing it. Read under the
 * asset's use lock, so a use whose add already checked the asset is waited for and counted (asset-use-lock.ts).
 */
export class AssetUsesService {
  constructor(private readonly db: Db) {}

  async get(input: unknown): Promise<GetAssetUsesReply> {
    const { asset } = parseOrThrow(getAssetUsesRequestSchema, input);
    const rows = await this.db.transaction(async (tx) => {
      await lockAssetUse(tx, asset);
      return tx.query<{ type: AssetUse['type']; id: string }>(
        `select 'portfolio' as type, portfolio_id::text as id from deals where asset_type = $1 and asset_id = $2
          group by portfolio_id having sum(case type when 'buy' then quantity when 'sell' then -quantity else 0 end) > 0
         union all
         select 'watchlist', watchlist_id::text from watchlist_items where asset_type = $1 and asset_id = $2
         order by 1, 2`,
        [asset.type, asset.id],
      );
    });
    return { data: { used_in: rows.map((r) => ({ type: r.type, id: num(r.id) })) } };
  }
}
