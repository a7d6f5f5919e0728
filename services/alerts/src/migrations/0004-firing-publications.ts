import { Migration } from '@invest/platform/db/database';

/**
 * NotificationFired is published straight after the firing commits, not through the outbox relay: each
 * firing keeps its event id (the JetStream msgID, so a repeat is dropped by the stream's duplicate window),
 * and each committed chunk of firings leaves one `firing_publications` row until JetStream acknowledged its
 * events. A row left behind (a crash, NATS away) is published again by the backstop.
 */
export class FiringPublications extends Migration {
  override up() {
    this.addSql('alter table notification_firings add column event_id uuid not null default gen_random_uuid()');
    this.addSql(`
      create table firing_publications (
        id bigint generated always as identity primary key,
        firing_ids bigint[] not null,
        created_at timestamptz not null default now()
      )`);
  }
}
