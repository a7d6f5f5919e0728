import { Migration } from '@mikro-orm/migrations';

/**
 * `es_dead_letters`: messages a durable consumer gave up on (malformed, or its handler failed on every
 * delivery), kept for inspection and replay (see docs/runbook.md). Every service with a `DurableConsumer`
 * lists this migration after the event store's.
 */
export class DeadLetterMigration extends Migration {
  override up() {
    this.addSql(`
      create table if not exists es_dead_letters (
        id bigint generated always as identity primary key,
        consumer text not null,
        stream text not null,
        subject text not null,
        stream_sequence bigint not null,
        deliveries int not null,
        reason text not null,
        error text not null,
        event_id text,
        event_type text,
        payload text not null,
        dead_lettered_at timestamptz not null default now(),
        replay_requested_at timestamptz,
        replays int not null default 0
      )`);
    this.addSql('create index if not exists es_dead_letters_consumer_idx on es_dead_letters (consumer, dead_lettered_at)');
    this.addSql('create index if not exists es_dead_letters_replay_idx on es_dead_letters (consumer) where replay_requested_at is not null');
  }
}

/** Migration list entry: `migrations: [eventStoreMigration, deadLetterMigration, ...own]`. */
export const deadLetterMigration = { name: '0000-dead-letters', class: DeadLetterMigration };
