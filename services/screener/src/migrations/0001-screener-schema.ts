import { Migration } from '@invest/platform/db/database';

/**
 * Market data of every asset type. `assets` is generic (one row per tradable thing; its id is what
 * portfolios and alerts refer to); `shares` adds what only shares have. Later issues add sibling tables
 * (`bonds`, `tokens`, …) keyed by `asset_id` the same way.
 */
export class ScreenerSchema extends Migration {
  override up(): void {
    // Trigram index for substring search; pg_trgm is a trusted extension (database owners may create it).
    this.addSql('create extension if not exists pg_trgm');

    this.addSql(`create table countries (
      code char(2) primary key check (code ~ '^[A-Z]{2}$'),
      name text not null
    )`);

    this.addSql(`create table share_categories (
      id serial primary key,
      slug text not null unique,
      name text not null,
      moex_sec_type text unique
    )`);
    // Reference data every environment needs (the live MOEX fetch maps SECTYPE through moex_sec_type).
    this.addSql(`insert into share_categories (slug, name, moex_sec_type) values
      ('ordinary', 'Ordinary shares', '1'),
      ('preferred', 'Preferred shares', '2'),
      ('depositary-receipt', 'Depositary receipts', 'D')`);

    this.addSql(`create table assets (
      id bigserial primary key,
      type text not null check (type in ('token', 'share', 'bond', 'etf', 'future', 'currency', 'custom_asset')),
      ticker text not null,
      board text,
      isin text,
      name text not null,
      short_name text,
      latin_name text,
      currency text not null,
      current_rate numeric,
      price_change_percentage_24h numeric,
      price_change_percentage_7d numeric,
      price_source text,
      rate_updated_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      search_text text generated always as (
        translate(lower(
          ticker || E'\\n' || coalesce(isin, '') || E'\\n' || name || E'\\n' || coalesce(short_name, '') || E'\\n' || coalesce(latin_name, '')
        ), 'ё', 'е')
      ) stored,
      constraint assets_type_ticker_key unique (type, ticker)
    )`);
    this.addSql('create index assets_search_text_trgm on assets using gin (search_text gin_trgm_ops)');
    this.addSql('create index assets_isin on assets (isin)');

    this.addSql(`create table shares (
      asset_id bigint primary key references assets (id) on delete cascade,
      category_id int not null references share_categories (id),
      country_code char(2) references countries (code),
      market_cap numeric,
      trading_volume numeric,
      lot_size int,
      list_level smallint,
      issue_size bigint,
      dividends_synced_at timestamptz
    )`);
    this.addSql('create index shares_category_id on shares (category_id)');
    this.addSql('create index shares_country_code on shares (country_code)');

    this.addSql(`create table dividends (
      id bigserial primary key,
      asset_id bigint not null references assets (id) on delete cascade,
      record_date date not null,
      value numeric not null check (value > 0),
      currency text not null,
      source text not null,
      created_at timestamptz not null default now(),
      constraint dividends_asset_date_value_key unique (asset_id, record_date, value)
    )`);
    // The yield sub-query reads one asset's dividends in a record-date window.
    this.addSql('create index dividends_asset_record_date on dividends (asset_id, record_date) include (value, currency)');

    // One row per one-time data load (demo data), so it runs once even across restarts and instances.
    this.addSql(`create table data_loads (
      name text primary key,
      loaded_at timestamptz not null default now(),
      details jsonb not null default '{}'
    )`);
  }
}
