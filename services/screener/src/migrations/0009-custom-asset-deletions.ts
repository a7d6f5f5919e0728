import { Migration } from '@mikro-orm/migrations';

/**
 * A custom asset being deleted is hidden first (`deleting_since`), then deleted once the portfolios service
 * says it is not in use (custom-assets.service.ts, `delete`); the partial index finds deletions a stopped
 * process left half way.
 */
export class CustomAssetDeletions extends Migration {
  override up() {
    this.addSql('alter table custom_assets add column deleting_since timestamptz');
    this.addSql('create index custom_assets_deleting_idx on custom_assets (deleting_since) where deleting_since is not null');
  }
}
