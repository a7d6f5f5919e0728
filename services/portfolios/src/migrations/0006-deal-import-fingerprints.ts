import { Migration } from '@invest/platform';

/**
 * A deal imported from a CSV file keeps the fingerprint of its row (deal-imports/import-fingerprint.ts): the
 * unique index makes a second import of the same file add nothing, even when two imports race.
 */
export class DealImportFingerprints extends Migration {
  override up(): void {
    this.addSql('alter table deals add column import_fingerprint text');
    this.addSql('create unique index deals_import_fingerprint_key on deals (portfolio_id, import_fingerprint) where import_fingerprint is not null');
  }
}
