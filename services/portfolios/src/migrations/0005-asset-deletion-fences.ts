import { Migration } from '@invest/platform';

/**
 * A custom asset's deletion asking for its uses leaves a fence here (asset-uses/asset-use.ts): an add of a use that
 * checked the asset with the screener before the fence (its check may have seen the asset before it was hidden)
 * is refused under the asset's use lock, without asking the screener again inside its transaction.
 */
export class AssetDeletionFences extends Migration {
  override up(): void {
    this.addSql(`create table asset_deletion_fences (
      id bigint generated always as identity primary key,
      asset_type text not null,
      asset_id bigint not null,
      at timestamptz not null default now()
    )`);
    this.addSql('create index asset_deletion_fences_asset_idx on asset_deletion_fences (asset_type, asset_id, id)');
  }
}
