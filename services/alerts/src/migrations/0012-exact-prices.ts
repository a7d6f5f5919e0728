import { Migration } from '@invest/platform/db/database';

/**
 * Prices are exact decimals, as everywhere else (`numeric`, platform's `Decimal`): a price-target's target and a
 * price-change's step (`value`, `initial_value`) and the latest rates (`latest_rates.rate`) were `double precision`,
 * so a target with more significant digits than a double keeps was compared, and shown, as another price.
 *
 * Existing rows keep the values they showed: a double's shortest round-trip text (`extra_float_digits = 1`, the
 * form JavaScript writes a double in) is the decimal that was entered or received. The trigger and the view that
 * name the columns are dropped and made again around the change of type (Postgres refuses it under them).
 * `change_24h` stays a double: a percentage, not money.
 */
export class ExactPrices extends Migration {
  override up() {
    this.addSql('set local extra_float_digits = 1');
    this.addSql('drop trigger notifications_index_update on notifications');
    this.addSql('drop view notification_conditions');
    this.addSql(`alter table notifications
      alter column value type numeric using value::text::numeric,
      alter column initial_value type numeric using initial_value::text::numeric`);
    this.addSql('alter table latest_rates alter column rate type numeric using rate::text::numeric');
    this.addSql(`create view notification_conditions as
      select id as notification_id, operator, value, initial_value, cooldown_minutes from notifications`);
    this.addSql(`create trigger notifications_index_update after update on notifications
      for each row when (new.is_active and (not old.is_active or new.initial_value < old.initial_value or new.value <> old.value or new.operator <> old.operator))
      execute function alerts_notification_changed()`);
  }
}
