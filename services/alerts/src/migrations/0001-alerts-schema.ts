import { Migration } from '@invest/platform/db/database';

/**
 * The spec's Notification, NotificationCondition and NotificationType, plus what evaluation needs locally:
 * the latest rate of every asset (from RatesUpdated), portfolio and watchlist membership (from
 * PORTFOLIOS_EVENTS), asset names (from screener.assets.get at creation) and the firings (the inbox).
 */
export class AlertsSchema extends Migration {
  override up() {
    this.addSql(`
      create table notification_types (
        id integer primary key,
        code text not null unique,
        title_template jsonb not null,
        body_template jsonb not null,
        path text not null
      )`);
    // Templates per locale; {placeholders} are filled by render-firing.ts.
    this.addSql(`
      insert into notification_types (id, code, title_template, body_template, path) values
      (2, 'price-target',
        '{"ru": "{ticker}: цена {rate}", "en": "{ticker}: price {rate}"}',
        '{"ru": "{name} ({ticker}) достиг целевой цены {target}: сейчас {rate}.", "en": "{name} ({ticker}) reached the target price {target}: now {rate}."}',
        '/assets/{asset_type}/{asset_id}'),
      (8, 'price-change',
        '{"ru": "{subject}: изменение за 24 ч {change}%", "en": "{subject}: 24h change {change}%"}',
        '{"ru": "Изменение за 24 ч достигло порога {threshold}%: {assets}. Следующий порог {next_threshold}%.", "en": "The 24h change reached the {threshold}% threshold: {assets}. Next threshold {next_threshold}%."}',
        '/{target_type}s/{target_id}')`);
    this.addSql(`
      create table notifications (
        id bigint generated always as identity primary key,
        user_id text not null,
        notification_type_id integer not null references notification_types (id),
        targetable_type text not null check (targetable_type in ('asset', 'portfolio', 'watchlist')),
        targetable_id bigint not null,
        -- Set for asset targets (the asset's type); null for portfolio and watchlist targets.
        asset_type text,
        name text,
        -- The portfolio's or watchlist's name when the notification was created (for the rendered text).
        target_name text,
        is_active boolean not null default true,
        last_triggered_at timestamptz,
        -- Bumped whenever the threshold returns to its step (switch, daily reset) or a price-target is
        -- switched: part of the firing key, so a step fires once per cycle.
        cycle integer not null default 0,
        -- NotificationCondition, one per notification (kept in the row so one index serves evaluation).
        operator text not null check (operator in ('>=', '<=')),
        value double precision not null,
        initial_value double precision not null,
        cooldown_minutes integer,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((targetable_type = 'asset') = (asset_type is not null))
      )`);
    this.addSql('create index notifications_user_idx on notifications (user_id, id desc)');
    // Evaluation reads only the rows a rate can fire, by asset and condition range: initial_value is the
    // threshold now (a price-target's target; it equals value). Rows whose threshold grew and that last
    // fired before today (the daily reset applies) are found by the second index until the reset job
    // materialises their reset.
    this.addSql(`create index notifications_asset_eval_idx on notifications (asset_type, targetable_id, notification_type_id, operator, initial_value)
      where is_active and targetable_type = 'asset'`);
    this.addSql(`create index notifications_asset_reset_idx on notifications (asset_type, targetable_id, last_triggered_at)
      where is_active and targetable_type = 'asset' and notification_type_id = 8 and initial_value > value`);
    this.addSql(`create index notifications_group_eval_idx on notifications (targetable_type, targetable_id, initial_value)
      where is_active and targetable_type <> 'asset'`);
    this.addSql(`create index notifications_group_reset_idx on notifications (targetable_type, targetable_id, last_triggered_at)
      where is_active and targetable_type <> 'asset' and initial_value > value`);
    this.addSql(`create index notifications_reset_job_idx on notifications (last_triggered_at) where notification_type_id = 8 and initial_value > value`);
    this.addSql(`create view notification_conditions as
      select id as notification_id, operator, value, initial_value, cooldown_minutes from notifications`);
    this.addSql(`
      create table latest_rates (
        asset_type text not null,
        asset_id bigint not null,
        ticker text not null,
        currency text,
        rate double precision,
        change_24h double precision,
        as_of timestamptz not null,
        observed_at timestamptz not null,
        primary key (asset_type, asset_id)
      )`);
    this.addSql(`
      create table assets (
        asset_type text not null,
        asset_id bigint not null,
        ticker text not null,
        name text,
        primary key (asset_type, asset_id)
      )`);
    this.addSql(`
      create table memberships (
        target_type text not null check (target_type in ('portfolio', 'watchlist')),
        target_id bigint not null,
        asset_type text not null,
        asset_id bigint not null,
        user_id text not null,
        primary key (target_type, target_id, asset_type, asset_id)
      )`);
    this.addSql('create index memberships_asset_idx on memberships (asset_type, asset_id)');
    // Targets deleted upstream: a late create for one is refused, and late membership events ignored.
    this.addSql(`create table deleted_targets (target_type text not null, target_id bigint not null, deleted_at timestamptz not null default now(), primary key (target_type, target_id))`);
    this.addSql(`
      create table notification_firings (
        id bigint generated always as identity primary key,
        notification_id bigint not null references notifications (id) on delete cascade,
        -- 'c<cycle>' (price-target) or 'c<cycle>:t<threshold>' (price-change): one firing per step.
        step_key text not null,
        user_id text not null,
        type text not null,
        texts jsonb not null,
        path text not null,
        assets jsonb not null,
        explanation jsonb not null,
        fired_at timestamptz not null,
        read_at timestamptz,
        constraint notification_firings_step_key unique (notification_id, step_key)
      )`);
    this.addSql('create index notification_firings_user_idx on notification_firings (user_id, id desc)');
    this.addSql('create index notification_firings_unread_idx on notification_firings (user_id) where read_at is null');
  }
}
