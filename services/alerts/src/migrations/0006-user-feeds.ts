import { Migration } from '@invest/platform/db/database';

/**
 * One row per user who has had a firing: the row a transaction locks (`for update`, in user order) before its
 * firings take their ids, so each user's firing ids become visible in order (evaluation/alerts-evaluator.ts,
 * `lockFeeds`). A row lock rather than an advisory lock: a sweep firing for thousands of users at once would
 * fill the server's shared lock table with advisory locks; row locks are kept on the rows themselves.
 */
export class UserFeeds extends Migration {
  override up() {
    this.addSql('create table user_feeds (user_id text primary key)');
  }
}
