import { Migration } from '@invest/platform/db/database';

/**
 * Live market data: every asset type gets rates from its provider; tokens are keyed by the provider's id;
 * daily closes feed the 7-day change; the used-assets set drives the every-minute refresh; custom assets
 * belong to a user.
 */
export class MarketDataSchema extends Migration {
  override up(): void {
    // The provider's own key where the ticker is not unique (CoinGecko coin id: many coins share a symbol).
    this.addSql('alter table assets add column source_id text');
    // The price as the exchange quotes it (percent of face for bonds, points for index futures); current_rate is money.
    this.addSql('alter table assets add column quoted_price numeric');
    // Exchange tickers stay unique per type; tokens are unique by coin id, custom assets per owner row.
    this.addSql('alter table assets drop constraint assets_type_ticker_key');
    this.addSql(`create unique index assets_type_ticker_key on assets (type, ticker) where type not in ('token', 'custom_asset')`);
    this.addSql(`create unique index assets_token_source_id_key on assets (source_id) where type = 'token'`);
    this.addSql(`alter table assets add constraint assets_token_has_source_id check (type <> 'token' or source_id is not null)`);

    this.addSql(`create table bonds (
      asset_id bigint primary key references assets (id) on delete cascade,
      face_value numeric,
      face_unit text,
      maturity_date date
    )`);
    this.addSql(`create table tokens (
      asset_id bigint primary key references assets (id) on delete cascade,
      market_cap numeric,
      total_volume numeric
    )`);
    this.addSql(`create table custom_assets (
      asset_id bigint primary key references assets (id) on delete cascade,
      owner_user_id text not null,
      description text
    )`);
    this.addSql('create index custom_assets_owner on custom_assets (owner_user_id, asset_id)');

    // One close per asset and market day (MARKET_TZ): the last rate seen that day. Feeds the 7-day change
    // (and the custom assets' day change) where the provider does not give one.
    this.addSql(`create table asset_daily_closes (
      asset_id bigint not null references assets (id) on delete cascade,
      trade_date date not null,
      close numeric not null check (close > 0),
      primary key (asset_id, trade_date)
    )`);

    // Assets somebody needs fresh every minute: open portfolio positions (source 'portfolio', ref = portfolio
    // id), later active alert targets (source 'alert'). Not a foreign key: events may name assets first.
    this.addSql(`create table used_assets (
      source text not null,
      ref text not null,
      asset_id bigint not null,
      since timestamptz not null default now(),
      primary key (source, ref, asset_id)
    )`);
    this.addSql('create index used_assets_asset_id on used_assets (asset_id)');
  }
}
