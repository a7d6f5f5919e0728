import { Migration } from '@invest/platform';

/**
 * Fiscal receipts (54-FZ): the charges still waiting for one are found by an index, and only charges paid since
 * this release are watched (`receipt_watch.since`): older ones never asked the provider for a receipt.
 */
export class Receipts extends Migration {
  override up(): void {
    this.addSql(`create index payment_history_receipt_due_idx on payment_history (at) where receipt_url is null and status <> 'failed'`);
    this.addSql('create table receipt_watch (since timestamptz not null)');
    this.addSql('insert into receipt_watch (since) values (now())');
  }
}
