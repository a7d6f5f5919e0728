import { Migration } from '@invest/platform/db/database';

/**
 * The provider's time (`as_of`) of the rate a price-target's operator was decided from at creation: that rate
 * may be the screener's, newer than the latest one alerts holds, and an older rate arriving later (a backlog,
 * the sweep over what alerts holds) must not fire it (`evaluatePriceTarget`). Null for rows created before
 * (no such check) and for price-change rows. No index: a firing's update stays HOT (migration 0007).
 */
export class OperatorRateAsOf extends Migration {
  override up() {
    this.addSql('alter table notifications add column if not exists operator_rate_as_of timestamptz');
  }

}
