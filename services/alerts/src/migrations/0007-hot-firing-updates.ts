import { Migration } from '@invest/platform/db/database';

/**
 * A firing's update of its notification becomes a HOT update, and its firing row gets cheaper to write.
 *
 * Events never range-read `notifications` any more (the in-memory candidate index names the rows, read by id),
 * yet five partial indexes keyed on the columns a firing changes (`initial_value`, `last_triggered_at`,
 * `is_active`) made every firing's update a new tuple in each of them: with 1M notifications, 500 firings
 * wrote ~3,500 WAL records and ~12 MB of full-page images after a checkpoint (61 ms), against 500 records and
 * ~3 MB (9 ms) with none of them and free room on the page. What they served now reads one index on the
 * target (which never changes): the sweeps and the no-index fallback (a hash join, or per changed asset),
 * the target deletions; the daily reset scans the table once a day.
 *
 * The firing rows' documents are `json` (validated, not rebuilt as `jsonb`: nothing queries inside them), and
 * their foreign key goes: its per-row check read the notification again; deleting a notification deletes its
 * firings itself (notification.service.ts), as the cascade did.
 *
 * The per-user feed lock rows (`user_feeds`, 0006) give way to advisory locks per bucket of users.
 *
 * `fillfactor` applies to pages written from now on: `vacuum full notifications` gives a big table's existing
 * pages their room in a maintenance window (see the runbook); until then its updates move rows to pages that have it.
 */
export class HotFiringUpdates extends Migration {
  override up() {
    this.addSql(
      'drop index notifications_asset_eval_idx, notifications_asset_reset_idx, notifications_group_eval_idx, notifications_group_reset_idx, notifications_reset_job_idx',
    );
    this.addSql('create index notifications_target_idx on notifications (targetable_type, targetable_id, asset_type)');
    this.addSql('alter table notifications set (fillfactor = 85)');
    // Every asset's latest rate is rewritten each minute: with room on its page the upsert is HOT too (3,000
    // rates: ~1.4 MB of WAL and 34 ms, against ~0.4 MB and 21 ms). A few thousand rows: rewritten at once.
    this.addSql('alter table latest_rates set (fillfactor = 50)');
    this.addSql('cluster latest_rates using latest_rates_pkey');
    this.addSql('alter table notification_firings drop constraint notification_firings_notification_id_fkey');
    // Feed locks are advisory locks per bucket of users now (evaluation/feed-locks.ts): a row lock per user
    // wrote a WAL record and dirtied a page for each, as much as the firing's own update.
    this.addSql('drop table user_feeds');
    this.addSql(`alter table notification_firings
      alter column texts type json using texts::json,
      alter column assets type json using assets::json,
      alter column explanation type json using explanation::json`);
  }
}
