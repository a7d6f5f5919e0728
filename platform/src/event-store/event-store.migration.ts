import { Migration } from '@mikro-orm/migrations';

/**
 * The event store, outbox checkpoint and consumer inbox tables. Every service that records events
 * lists this migration first. `transaction_id` lets global readers skip nothing (see readAll).
 */
export class EventStoreMigration extends Migration {
  override up() {
    this.addSql(`
      create table if not exists es_events (
        global_position bigint generated always as identity primary key,
        event_id uuid not null,
        stream_name text not null,
        stream_position bigint not null,
        type text not null,
        data jsonb not null,
        metadata jsonb not null default '{}'::jsonb,
        transaction_id xid8 not null default pg_current_xact_id(),
        recorded_at timestamptz not null default now(),
        constraint es_events_event_id_key unique (event_id),
        constraint es_events_stream_position_key unique (stream_name, stream_position)
      )`);
    this.addSql('create index if not exists es_events_tx_position_idx on es_events (transaction_id, global_position)');
    this.addSql(`
      create table if not exists es_checkpoints (
        name text primary key,
        transaction_id xid8 not null,
        global_position bigint not null,
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`
      create table if not exists es_inbox (
        consumer text not null,
        message_id text not null,
        processed_at timestamptz not null default now(),
        primary key (consumer, message_id)
      )`);
    // Wakes relays at commit time; they also poll, so a missed notification only delays.
    this.addSql(`
      create or replace function es_events_notify() returns trigger language plpgsql as $$
      begin perform pg_notify('es_events', ''); return null; end $$`);
    this.addSql('drop trigger if exists es_events_notify on es_events');
    this.addSql('create trigger es_events_notify after insert on es_events for each statement execute function es_events_notify()');
  }
}

/** Migration list entry for services: `migrations: [eventStoreMigration, ...own]`. */
export const eventStoreMigration = { name: '0000-event-store', class: EventStoreMigration };
