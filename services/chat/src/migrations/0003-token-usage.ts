import { Migration } from '@invest/platform';

/**
 * Tokens each answer cost, for the per-user daily token budget (limits/token-budget.ts). One row per answer,
 * keyed by its id: the usage is written as a running total (set, never added), so writing it again, when the
 * usage chunk arrives and again when the answer settles, counts it once.
 */
export class ChatTokenUsage extends Migration {
  override up() {
    this.addSql(`
      create table chat_token_usage (
        message_id uuid primary key,
        user_id text not null,
        period_start timestamptz not null,
        prompt_tokens integer not null check (prompt_tokens >= 0),
        completion_tokens integer not null check (completion_tokens >= 0),
        total_tokens integer not null check (total_tokens >= 0),
        estimated boolean not null,
        recorded_at timestamptz not null
      )`);
    this.addSql('create index chat_token_usage_user_idx on chat_token_usage (user_id, period_start)');
  }
}
