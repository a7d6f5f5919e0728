import { Migration } from '@invest/platform/db/database';

/**
 * E-mail: when the receiving server refused the address for good (a 5xx for the recipient). The address is kept
 * (the settings screen shows it and the failure) but gets nothing more until the user enters an address again,
 * whose confirmation mail clears it.
 */
export class EmailBounces extends Migration {
  override up() {
    this.addSql('alter table email_addresses add column bounced_at timestamptz');
  }
}
