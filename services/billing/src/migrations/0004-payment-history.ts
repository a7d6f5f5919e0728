import { Migration } from '@invest/platform';

/**
 * The payment history (`GET /api/subscription/payments`): one row per charge the provider reported, paid,
 * refunded or failed, with its plan and card. A read model like the others (projected, rebuilt from the
 * events); the payments recorded before it are filled in from their events here.
 */
export class PaymentHistory extends Migration {
  override up(): void {
    this.addSql(`
      create table payment_history (
        payment_id text primary key,
        user_id text not null,
        at timestamptz not null,
        amount numeric(14, 2) not null,
        currency text not null,
        plan_code text,
        status text not null check (status in ('paid', 'refunded', 'failed')),
        card_last_four text,
        receipt_url text
      )`);
    this.addSql('create index payment_history_user_idx on payment_history (user_id, at desc, payment_id desc)');
    this.addSql(`
      insert into payment_history (payment_id, user_id, at, amount, currency, plan_code, status, card_last_four)
      select data->>'paymentId', data->>'userId', (data->>'at')::timestamptz, (data->>'amount')::numeric, data->>'currency', data->>'planCode', 'paid', data->>'cardLastFour'
      from es_events where type = 'PaymentRecorded' and stream_name like 'billing-user-%'
      on conflict (payment_id) do nothing`);
  }
}
