import { Migration } from '@invest/platform/db/database';

/**
 * Settings per user, and the delivery outbox: firings received (`received_firings`) are gathered into one
 * message per move (`message_groups`), which becomes one row per channel and address (`deliveries`), sent
 * and recorded at most once each (unique), retried with backoff, its last permanent failure per channel kept
 * for the settings screen (`delivery_failures`).
 */
export class DeliverySchema extends Migration {
  override up() {
    this.addSql(`
      create table settings (
        user_id text primary key,
        in_app boolean not null default true,
        telegram boolean not null default true,
        push boolean not null default true,
        email boolean not null default true,
        quiet_start text,
        quiet_end text,
        time_zone text not null default 'Europe/Moscow',
        language text not null default 'ru' check (language in ('ru', 'en')),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`
      create table message_groups (
        id bigint generated always as identity primary key,
        user_id text not null,
        opened_at timestamptz not null,
        due_at timestamptz not null,
        sealed_at timestamptz
      )`);
    this.addSql('create index message_groups_open_idx on message_groups (user_id) where sealed_at is null');
    this.addSql('create index message_groups_due_idx on message_groups (due_at) where sealed_at is null');
    this.addSql(`
      create table received_firings (
        firing_id bigint primary key,
        user_id text not null,
        notification_id bigint not null,
        event jsonb not null,
        group_id bigint not null references message_groups (id),
        received_at timestamptz not null
      )`);
    this.addSql('create index received_firings_group_idx on received_firings (group_id)');
    this.addSql(`
      create table deliveries (
        id bigint generated always as identity primary key,
        group_id bigint not null references message_groups (id),
        user_id text not null,
        channel text not null check (channel in ('telegram', 'push', 'email')),
        address text not null,
        status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'skipped')),
        attempts int not null default 0,
        next_attempt_at timestamptz not null,
        last_error text,
        provider_id text,
        sent_at timestamptz,
        unique (group_id, channel, address)
      )`);
    this.addSql("create index deliveries_due_idx on deliveries (next_attempt_at) where status = 'pending'");
    this.addSql(`
      create table delivery_failures (
        user_id text not null,
        channel text not null,
        at timestamptz not null,
        reason text not null,
        primary key (user_id, channel)
      )`);
  }
}
