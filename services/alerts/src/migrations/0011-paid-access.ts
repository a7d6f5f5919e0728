import { Migration } from '@invest/platform/db/database';

/**
 * Until when each user's paid access runs, as billing last answered (`plans/paid-access.repository.ts`): written on the
 * user's billing events (BILLING_EVENTS) and by creates and switch-ons, read by evaluation to keep what the free
 * plan does not allow from firing once it has passed. Only users alerts has seen with paid access have a row.
 * `paid_until` null: paid access without an end; `asked_at`: when billing was asked, so an older answer never
 * replaces a newer one.
 */
export class PaidAccess extends Migration {
  override up() {
    this.addSql(`
      create table if not exists paid_access (
        user_id text primary key,
        paid_until timestamptz,
        asked_at timestamptz not null
      )`);
    // Evaluation asks which of a batch's users' paid access has ended: through this index when few have, by
    // the primary key when many of the batch's users have a row.
    this.addSql('create index if not exists paid_access_paid_until_idx on paid_access (paid_until)');
  }
}
