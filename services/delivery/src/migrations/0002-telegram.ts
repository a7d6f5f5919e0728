import { Migration } from '@invest/platform/db/database';

/**
 * Telegram: single-use link tokens (stored hashed, 15 minutes), the chat each user linked (`chat_id` null once
 * unlinked; `blocked` when the bot was blocked, shown in settings), and update ids already handled (the
 * webhook is retried by Telegram).
 */
export class TelegramSchema extends Migration {
  override up() {
    this.addSql(`
      create table telegram_link_tokens (
        token_hash text primary key,
        user_id text not null,
        expires_at timestamptz not null,
        used_at timestamptz
      )`);
    this.addSql(`
      create table telegram_chats (
        user_id text primary key,
        chat_id bigint unique,
        username text,
        linked_at timestamptz,
        blocked boolean not null default false,
        muted_until timestamptz,
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`
      create table telegram_updates (
        update_id bigint primary key,
        received_at timestamptz not null default now()
      )`);
  }
}
