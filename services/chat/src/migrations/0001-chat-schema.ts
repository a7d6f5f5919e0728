import { Migration } from '@invest/platform';

/**
 * Chats and their messages. Chats are soft-deleted: their answers still count against the day's free
 * limit (deleting a chat must not give the messages back).
 */
export class ChatSchema extends Migration {
  override up() {
    this.addSql(`
      create table chats (
        id uuid primary key,
        user_id text not null,
        context_type text not null,
        context_id text,
        title text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        deleted_at timestamptz
      )`);
    this.addSql('create index chats_user_idx on chats (user_id, updated_at desc, id) where deleted_at is null');
    this.addSql(`
      create table chat_messages (
        seq bigint generated always as identity,
        id uuid primary key,
        chat_id uuid not null references chats (id),
        user_id text not null,
        context_type text not null,
        role text not null check (role in ('user', 'assistant')),
        content text not null default '',
        status text not null check (status in ('complete', 'streaming', 'stopped', 'failed')),
        rating text check (rating in ('like', 'dislike')),
        rating_comment text,
        model text,
        usage jsonb,
        latency_ms integer,
        first_chunk_ms integer,
        error text,
        created_at timestamptz not null,
        completed_at timestamptz
      )`);
    this.addSql('create index chat_messages_chat_idx on chat_messages (chat_id, seq)');
    // Answers counted against a period's limit: reserved (+1) with the messages, in one statement whose
    // upsert serialises a user's concurrent sends on this row; given back (-1) in the statement that settles
    // an answer as failed before the model sent anything.
    this.addSql(`
      create table chat_usage (
        user_id text not null,
        context_type text not null,
        period_start timestamptz not null,
        used integer not null check (used >= 0),
        primary key (user_id, context_type, period_start)
      )`);
  }
}
