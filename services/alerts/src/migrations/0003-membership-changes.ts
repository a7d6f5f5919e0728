import { Migration } from '@invest/platform/db/database';

/**
 * The stream position of the last membership change applied per (target, asset): a PositionOpened or
 * WatchlistItemAdded delivered after the later change that undid it (a redelivery after an instance died, the
 * other instance having gone on) is then recognised as stale instead of adding the asset back for good.
 */
export class MembershipChanges extends Migration {
  override up() {
    this.addSql(`
      create table membership_changes (
        target_type text not null,
        target_id bigint not null,
        asset_type text not null,
        asset_id bigint not null,
        stream_position bigint not null,
        primary key (target_type, target_id, asset_type, asset_id)
      )`);
  }
}
