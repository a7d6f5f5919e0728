import { Migration } from '@invest/platform/db/database';

/**
 * E-mail: one address per user, unconfirmed until its link is followed (`confirm_token_hash`, sent once:
 * `confirm_sent_at`), and the opaque token of its one-click unsubscribe link.
 */
export class EmailSchema extends Migration {
  override up() {
    this.addSql(`
      create table email_addresses (
        user_id text primary key,
        address text not null,
        confirm_token_hash text,
        confirm_sent_at timestamptz,
        confirmed_at timestamptz,
        unsubscribe_token text not null unique,
        updated_at timestamptz not null default now()
      )`);
  }
}
