import { Migration } from '@invest/platform';

/**
 * Whether a payment bought paid time (`PaymentRecorded.grantsAccess`): one worth less than a day of its plan is
 * recorded and listed, but grants none. Every payment recorded before did buy time (a token 0.01 its seconds).
 */
export class PaymentGrantsAccess extends Migration {
  override up(): void {
    this.addSql('alter table subscription_payments add column grants_access boolean not null default true');
  }
}
