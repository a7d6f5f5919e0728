import { Migration } from '@invest/platform/db/database';

/** The trace a firing was received in (W3C traceparent; null when tracing is off): its send continues it. */
export class FiringTrace extends Migration {
  override up() {
    this.addSql('alter table received_firings add column traceparent text');
  }
}
