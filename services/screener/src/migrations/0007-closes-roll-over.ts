import { Migration } from '@mikro-orm/migrations';

/**
 * A refresh used to rewrite today's `asset_daily_closes` row of every asset it moved (an index probe, a new row
 * version and ~130 bytes of WAL per asset) and to look up the close 7 days back (another probe) for each: two
 * thirds of a 3,000-rate write. Both change once a market day, not once a minute. Now the current day's close is
 * the asset's `current_rate`; the writer stores it in `asset_daily_closes` when the first rate of a later day
 * arrives (the roll-over), and keeps the close the 7-day change compares against on the asset row
 * (`close_7d_base`, as found for market day `close_7d_base_for`), read from the closes once per asset and day.
 * Existing closes rows stay: today's, written the old way, equals the asset's current rate and is rewritten at
 * the roll-over.
 */
export class ClosesRollOver extends Migration {
  override up() {
    this.addSql('alter table assets add column close_7d_base numeric, add column close_7d_base_for date');
  }
}
