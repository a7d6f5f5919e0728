import { Migration } from '@invest/platform/db/database';

/**
 * What can widen the candidates of an evaluation, for the in-memory candidate index of every alerts instance
 * (evaluation/candidate-index.ts): a notification that becomes active or whose threshold comes down (create,
 * switch, daily reset), and any membership change of a portfolio/watchlist. Written by triggers, so no writer
 * can forget it; firings (thresholds going up, deactivation) write nothing here.
 */
export class CandidateIndexChanges extends Migration {
  override up() {
    this.addSql(`
      create table index_changes (
        id bigint generated always as identity primary key,
        notification_id bigint,
        target_type text,
        target_id bigint,
        at timestamptz not null default clock_timestamp()
      )`);
    this.addSql('create index index_changes_at_idx on index_changes (at)');
    this.addSql(`create function alerts_notification_changed() returns trigger language plpgsql as $$
      begin
        insert into index_changes (notification_id) values (new.id);
        return null;
      end $$`);
    this.addSql(`create function alerts_membership_changed() returns trigger language plpgsql as $$
      declare r record;
      begin
        r := case when tg_op = 'DELETE' then old else new end;
        insert into index_changes (target_type, target_id) values (r.target_type, r.target_id);
        return null;
      end $$`);
    this.addSql(`create trigger notifications_index_insert after insert on notifications
      for each row when (new.is_active) execute function alerts_notification_changed()`);
    this.addSql(`create trigger notifications_index_update after update on notifications
      for each row when (new.is_active and (not old.is_active or new.initial_value < old.initial_value or new.value <> old.value or new.operator <> old.operator))
      execute function alerts_notification_changed()`);
    this.addSql(`create trigger memberships_index_change after insert or delete on memberships
      for each row execute function alerts_membership_changed()`);
  }
}
