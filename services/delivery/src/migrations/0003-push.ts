import { Migration } from '@invest/platform/db/database';

/** Web Push: one subscription per browser (its endpoint), and the VAPID keys development generated once. */
export class PushSchema extends Migration {
  override up() {
    this.addSql(`
      create table push_subscriptions (
        id bigint generated always as identity primary key,
        user_id text not null,
        endpoint text not null unique,
        p256dh text not null,
        auth text not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql('create index push_subscriptions_user_idx on push_subscriptions (user_id)');
    this.addSql(`
      create table vapid_keys (
        id int primary key check (id = 1),
        public_key text not null,
        private_key text not null,
        created_at timestamptz not null default now()
      )`);
  }
}
