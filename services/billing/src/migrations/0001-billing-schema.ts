import { Migration } from '@invest/platform';

/**
 * Billing's read models (the spec's tables), all projected from the event store in the transaction that
 * appends the events, and rebuildable from them (`billing:rebuild-read-models`). Plans and statuses are
 * reference rows; plan prices are configuration, written at start.
 */
export class BillingSchema extends Migration {
  override up() {
    this.addSql(`
      create table subscription_plans (
        id integer primary key,
        code text not null unique,
        title text not null,
        price numeric(14, 2),
        currency text,
        period text check (period in ('month', 'year')),
        paid boolean not null
      )`);
    this.addSql(`create table subscription_statuses (id integer primary key, code text not null unique)`);
    this.addSql(`insert into subscription_statuses (id, code) values (1, 'active'), (2, 'cancelled')`);
    this.addSql(`
      create table subscriptions (
        id uuid primary key,
        user_id text not null,
        subscription_plan_id integer not null references subscription_plans (id),
        status_id integer not null references subscription_statuses (id),
        starts_at timestamptz not null,
        ends_at timestamptz,
        external_id text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        -- Stream position of the last event that changed it: "most recently updated" without clock ties.
        stream_version bigint not null
      )`);
    this.addSql('create index subscriptions_user_idx on subscriptions (user_id, stream_version desc)');
    this.addSql('create index subscriptions_ends_at_idx on subscriptions (ends_at)');
    this.addSql('create index subscriptions_external_id_idx on subscriptions (external_id) where external_id is not null');
    // Payments outlive the subscription they paid for (cleanup removes subscriptions, never money records).
    this.addSql(`
      create table subscription_payments (
        id uuid primary key,
        subscription_id uuid not null,
        user_id text not null,
        amount numeric(14, 2) not null,
        currency text not null,
        platform_id integer not null,
        uuid text not null unique,
        transaction_id text not null unique,
        invoice_id text,
        source text not null,
        created_at timestamptz not null
      )`);
    this.addSql('create index subscription_payments_subscription_idx on subscription_payments (subscription_id)');
    this.addSql(`
      create table unattributed_payments (
        transaction_id text primary key,
        account_id text,
        invoice_id text,
        amount text not null,
        currency text not null,
        reason text not null,
        created_at timestamptz not null
      )`);
  }
}
