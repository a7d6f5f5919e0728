import { Migration } from '@invest/platform';

/**
 * The stream position of the last AssetUpdated applied to a catalog row (the screener records an asset's
 * description changes on the stream `asset-<type>-<id>`), so a redelivered older description never
 * overwrites a newer one. Null: none applied yet.
 */
export class AssetDescriptionPosition extends Migration {
  override up(): void {
    this.addSql('alter table assets add column description_position bigint');
  }
}
