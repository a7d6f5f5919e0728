import { Migration } from '@mikro-orm/migrations';

/**
 * `assets.search_text` was a stored generated column: Postgres (15) recomputes it on EVERY update of the row,
 * whichever columns change, so a 3,000-rate refresh lowered and concatenated five names per row for nothing
 * (about a tenth of the write's server time). The same expression now runs in a trigger that fires only when
 * one of its columns is written (an insert, or an update that sets ticker, isin, name, short_name or
 * latin_name). DROP EXPRESSION keeps the stored values and the trigram index as they are: no rewrite.
 */
export class AssetsSearchTextTrigger extends Migration {
  override up() {
    this.addSql('alter table assets alter column search_text drop expression');
    this.addSql(`
      create or replace function assets_search_text() returns trigger language plpgsql as $$
      begin
        new.search_text := translate(lower(
          new.ticker || E'\\n' || coalesce(new.isin, '') || E'\\n' || new.name || E'\\n' || coalesce(new.short_name, '') || E'\\n' || coalesce(new.latin_name, '')
        ), 'ё', 'е');
        return new;
      end $$`);
    this.addSql(`
      create trigger assets_search_text before insert or update of ticker, isin, name, short_name, latin_name, search_text on assets
      for each row execute function assets_search_text()`);
  }
}
