import { Migration } from '@invest/platform/db/database';

/**
 * A received firing may be an account notice of alerts (a declined subscription charge), which is of no
 * notification: `notification_id` null (docs/decisions/0036-billing-notices.md).
 */
export class AccountNotices extends Migration {
  override up() {
    this.addSql('alter table received_firings alter column notification_id drop not null');
  }
}
