import { Migration } from '@mikro-orm/migrations';

/**
 * Rate refreshes rewrite the rate columns of thousands of `assets` rows, and today's `asset_daily_closes` row of
 * each, at once. With full pages every new row version lands on another page and every index gets an entry for
 * it (for `assets` the trigram GIN index too: most of a 3,000-rate write; for the closes one more primary-key
 * entry per refresh and asset, until vacuum). With room on the page the update is HOT: no index is touched (no
 * rate column is indexed) and the next refresh prunes the old version. A refresh updates every row of a page in
 * one statement, so a page needs room for a second version of each: half of it. The closes' older days keep
 * that half empty (about twice the table's size), the price of a cheap today's row. CLUSTER rewrites the
 * existing `assets` pages at the new fill factor; the closes' new days get it as they are inserted.
 * A 3,000-rate RatesUpdated is ~0.5 MB of JSON: LZ4 compresses it (TOAST) several times faster than the default
 * pglz, for a slightly larger row.
 */
export class AssetsHotRateUpdates extends Migration {
  override up() {
    this.addSql('alter table assets set (fillfactor = 50)');
    this.addSql('cluster assets using assets_pkey');
    this.addSql('alter table asset_daily_closes set (fillfactor = 50)');
    this.addSql('alter table es_events alter column data set compression lz4');
  }
}
