import { Migration } from '@invest/platform/db/database';

/**
 * Account notices in the inbox (docs/decisions/0036-billing-notices.md): a firing of no notification
 * (`notification_id` null), such as a declined subscription charge (billing's ChargeFailed). Its `step_key` names
 * what it tells (`charge-failed:<TransactionId>`), unique per user, so a redelivered event records it once.
 * Its `explanation` is JSON `null`: nothing crossed a threshold.
 */
export class AccountNotices extends Migration {
  override up() {
    this.addSql('alter table notification_firings alter column notification_id drop not null');
    this.addSql('create unique index notification_firings_notice_key on notification_firings (user_id, step_key) where notification_id is null');
  }
}
