import { Migration } from '@invest/platform';

/**
 * Where a custom asset is in use, read by asset (`portfolios.asset-uses.get`, asked by the screener before it
 * deletes one). Partial: only custom assets are ever asked about, so deals and items of market assets pay
 * for no second index.
 */
export class CustomAssetUses extends Migration {
  override up(): void {
    this.addSql(`create index deals_custom_asset_idx on deals (asset_id, portfolio_id) where asset_type = 'custom_asset'`);
    this.addSql(`create index watchlist_items_custom_asset_idx on watchlist_items (asset_id, watchlist_id) where asset_type = 'custom_asset'`);
  }
}
