import { Migration } from '@invest/platform';

/** The telegram channel's tables (filled in with the channel). */
export class TelegramSchema extends Migration {
  override up() {
    this.addSql('select 1');
  }
}
