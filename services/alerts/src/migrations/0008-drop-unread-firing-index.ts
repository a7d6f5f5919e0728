import { Migration } from '@invest/platform/db/database';

/**
 * The unread partial index on the firings goes: every firing paid for it (an insert keyed on the user id's
 * text, ~3.6 µs of Postgres a firing: 500-row inserts 12.8 → 11.0 ms on a copy of the bench's database).
 * It served marking all read and the unread count after marking; those now walk the user's firings by
 * `notification_firings_user_idx`, as the inbox page already did for its counts on every read, so a read
 * costs what the page costs, in proportion to the user's firings.
 */
export class DropUnreadFiringIndex extends Migration {
  override up() {
    this.addSql('drop index if exists notification_firings_unread_idx');
  }
}
