import { Migration } from '@invest/platform/db/database';

/**
 * The stream position of the last change applied to each used-assets membership, so the consumer's effect does
 * not depend on delivery order: a PositionOpened retried after the later PositionClosed (or PortfolioDeleted)
 * of its stream is ignored instead of leaving a stale row. `asset_id` 0 is the whole ref (a deleted portfolio).
 * Kept after a close (a tombstone): that is what makes the late open recognisable.
 */
export class UsedAssetChanges extends Migration {
  override up(): void {
    this.addSql(`create table used_asset_changes (
      source text not null,
      ref text not null,
      asset_id bigint not null,
      stream_position bigint not null,
      primary key (source, ref, asset_id)
    )`);
  }
}
