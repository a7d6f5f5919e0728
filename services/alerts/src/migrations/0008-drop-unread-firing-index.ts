import { Migration } from '@invest/platform';

/**
 * The unread partial index on the firings goes: every firing paid for it (an insert keyed on the user id's
 * text, ~3.6 µs of Postgres a firing: 500-row inserts 12.8 → 11.0 ms on a copy of the bench's database),
 * and no read needs it. The inbox page counts the user's firings and their unread ones in one pass over
 * `notification_firings_user_idx` anyway, and marking read walks the same index.
 */
export class DropUnreadFiringIndex extends Migration {
  override up() {
    this.addSql('drop index if exists notification_firings_unread_idx');
  }
}
