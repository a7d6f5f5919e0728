import { Migration } from '@mikro-orm/migrations';

/**
 * The screener's events are RatesUpdated documents of up to ~0.5 MB (3,000 rates) that nothing queries by
 * content: the relay reads them whole. Stored as `json` the append only validates the text (~2 ms for 0.5 MB)
 * instead of building `jsonb` (~7 ms), inside the transaction that holds the rates lock, and the relay reads the
 * text back without rendering `jsonb`. LZ4 stays (set again: the type change rewrites the column).
 */
export class EventsDataAsJson extends Migration {
  override up() {
    this.addSql('alter table es_events alter column data type json using data::json');
    this.addSql('alter table es_events alter column data set compression lz4');
  }
}
