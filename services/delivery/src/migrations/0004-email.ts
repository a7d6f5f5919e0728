import { Migration } from '@invest/platform';

/** The email channel's tables (filled in with the channel). */
export class EmailSchema extends Migration {
  override up() {
    this.addSql('select 1');
  }
}
