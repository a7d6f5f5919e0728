import { Migration } from '@mikro-orm/migrations';

/**
 * The idempotency keys of a service's create requests (see `idempotent`). A service adds a migration of
 * its own that extends this class, listed after its existing ones.
 *
 * A key is claimed (`status` 0, committed at once) before its create runs, and finished (`status`, `response`) in
 * the create's transaction; `created_at` is the claim's time: the key's expiry, and which claim of a key is which.
 *
 * `response` is `json`, not `jsonb`: a replay answers the stored text exactly, key order included.
 */
export class IdempotencyKeysMigration extends Migration {
  override up() {
    this.addSql(`
      create table if not exists idempotency_keys (
        scope text not null,
        user_id text not null,
        key text not null,
        fingerprint text not null,
        -- 0 while the create runs (never visible outside its transaction), then the answered HTTP status.
        status smallint not null default 0,
        response json,
        created_at timestamptz not null default now(),
        primary key (scope, user_id, key)
      )`);
    this.addSql('create index if not exists idempotency_keys_created_at_idx on idempotency_keys (created_at)');
  }
}
