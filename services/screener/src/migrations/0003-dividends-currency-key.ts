import { Migration } from '@invest/platform/db/database';

/**
 * A dividend is one payment per share, record date, value AND currency: ISS can list the same date and amount
 * in two currencies (e.g. RUB and USD), which the old key `(asset_id, record_date, value)` made one row, so
 * the sync's upsert failed ("cannot affect row a second time"). Existing rows satisfy the wider key.
 */
export class DividendsCurrencyKey extends Migration {
  override up(): void {
    this.addSql('alter table dividends drop constraint dividends_asset_date_value_key');
    this.addSql('alter table dividends add constraint dividends_asset_date_value_currency_key unique (asset_id, record_date, value, currency)');
  }
}
