import { Migration } from '@invest/platform';

/** The push channel's tables (filled in with the channel). */
export class PushSchema extends Migration {
  override up() {
    this.addSql('select 1');
  }
}
