import { Migration } from '@invest/platform';

/**
 * Declined recurring charges: a subscription may be `past_due` (status 3), usable until `grace_until` while the
 * provider tries again, and counts its consecutive declined charges.
 */
export class PastDue extends Migration {
  override up(): void {
    this.addSql(`insert into subscription_statuses (id, code) values (3, 'past_due') on conflict do nothing`);
    this.addSql('alter table subscriptions add column grace_until timestamptz, add column failed_charges integer not null default 0');
  }
}
