import { Migration } from '@invest/platform/db/database';

/**
 * At most one open message group per user, kept by the database: firings are recorded many at once with an
 * upsert on it (`recordFirings`), no longer one at a time under a per-user advisory lock.
 */
export class OneOpenGroup extends Migration {
  override up() {
    this.addSql('create unique index message_groups_open_user on message_groups (user_id) where sealed_at is null');
    this.addSql('drop index message_groups_open_idx');
  }
}
