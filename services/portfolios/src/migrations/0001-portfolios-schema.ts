import { Migration } from '@invest/platform';

/**
 * Portfolios, deals, watchlists; the local asset catalog with latest prices (fed by RatesUpdated and by
 * screener look-ups); the two statistics caches.
 */
export class PortfoliosSchema extends Migration {
  override up(): void {
    // Every change of an asset's price or description takes a new number: the hydrated cache remembers the
    // largest number among its assets and is stale once any of them has a larger one.
    this.addSql('create sequence asset_price_seq');
    this.addSql(`create table assets (
      asset_type text not null,
      asset_id bigint not null,
      ticker text not null,
      name text,
      currency text,
      current_rate double precision,
      price_change_24h double precision,
      rate_as_of timestamptz,
      price_seq bigint not null default nextval('asset_price_seq'),
      -- When the screener last described the asset (null: known only from RatesUpdated).
      catalog_checked_at timestamptz,
      updated_at timestamptz not null default now(),
      primary key (asset_type, asset_id)
    )`);

    this.addSql(`create table portfolios (
      id bigint generated always as identity primary key,
      user_id text not null,
      name text not null,
      currency_code text not null,
      -- Bumped in the transaction of every change that affects statistics (deals, currency).
      stats_version bigint not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create index portfolios_user_idx on portfolios (user_id, id)');

    this.addSql(`create table deals (
      id bigint generated always as identity primary key,
      portfolio_id bigint not null references portfolios (id) on delete cascade,
      asset_type text not null,
      asset_id bigint not null,
      type text not null check (type in ('buy', 'sell', 'dividend', 'coupon', 'fee', 'tax')),
      quantity numeric not null check (quantity > 0),
      price numeric not null check (price >= 0),
      commission numeric not null default 0 check (commission >= 0),
      date date not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index deals_portfolio_date_idx on deals (portfolio_id, date desc, id desc)');
    this.addSql('create index deals_portfolio_asset_idx on deals (portfolio_id, asset_type, asset_id)');

    this.addSql(`create table watchlists (
      id bigint generated always as identity primary key,
      user_id text not null,
      name text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index watchlists_user_idx on watchlists (user_id, id)');
    this.addSql(`create table watchlist_items (
      id bigint generated always as identity primary key,
      watchlist_id bigint not null references watchlists (id) on delete cascade,
      asset_type text not null,
      asset_id bigint not null,
      created_at timestamptz not null default now(),
      constraint watchlist_items_asset_key unique (watchlist_id, asset_type, asset_id)
    )`);

    // STATE cache: the price-independent aggregation of a portfolio's deals (7 days).
    this.addSql(`create table statistics_state (
      portfolio_id bigint primary key references portfolios (id) on delete cascade,
      stats_version bigint not null,
      state jsonb not null,
      computed_at timestamptz not null default now(),
      expires_at timestamptz not null
    )`);
    // HYDRATED cache: the full answer, state plus prices (50 seconds).
    this.addSql(`create table statistics_hydrated (
      portfolio_id bigint primary key references portfolios (id) on delete cascade,
      stats_version bigint not null,
      prices_version bigint not null,
      asset_types text[] not null,
      asset_ids bigint[] not null,
      body jsonb not null,
      state_computed_at timestamptz not null,
      computed_at timestamptz not null default now(),
      expires_at timestamptz not null
    )`);
  }
}
