import { Migration } from '@invest/platform/db/database';

/** The retention job (`dispatch/retention.job.ts`) finds the oldest sealed groups first. */
export class Retention extends Migration {
  override up() {
    this.addSql('create index message_groups_sealed_idx on message_groups (sealed_at) where sealed_at is not null');
  }
}
