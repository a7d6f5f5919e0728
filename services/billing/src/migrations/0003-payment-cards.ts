import { Migration } from '@invest/platform';

/**
 * The card each user last paid with, as the provider's token (`Token` of a Pay notification or `payments/find`):
 * what `subscriptions/create` charges when a cancelled subscription is resumed. Not projected from the events, on
 * purpose: the events are published on the bus, and a card token is a secret of ours and the provider's.
 */
export class PaymentCards extends Migration {
  override up(): void {
    this.addSql(`
      create table payment_cards (
        user_id text primary key,
        token text not null,
        card_last_four text,
        updated_at timestamptz not null
      )`);
  }
}
