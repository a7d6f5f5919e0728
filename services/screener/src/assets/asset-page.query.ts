import type { AssetPage, GetAssetPageRequest } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import { dividendYieldSql } from '../shares/dividend-yield.js';

/**
 * One market asset of the public asset page by type and ticker (tickers compare case-insensitively: a URL typed
 * in lower case finds it), shaped as the contract's JSON in one statement; null when there is none. `today` is the
 * market date (`YYYY-MM-DD`, MARKET_TZ) the yield window and the upcoming dividends start at.
 */
export async function getAssetPage(db: SqlClient, q: GetAssetPageRequest, today: string): Promise<AssetPage | null> {
  const yieldSql = dividendYieldSql({ id: 'a.id', currency: 'a.currency', price: 'a.current_rate', dividendsSyncedAt: 's.dividends_synced_at' }, '$3');
  const [row] = await db.query<{ page: AssetPage }>(
    `select json_build_object(
       'id', a.id, 'type', a.type, 'ticker', a.ticker, 'name', a.name, 'short_name', a.short_name, 'isin', a.isin,
       'currency', a.currency, 'current_rate', a.current_rate::float8,
       'price_change_percentage_24h', a.price_change_percentage_24h::float8,
       'price_change_percentage_7d', a.price_change_percentage_7d::float8,
       'rate_updated_at', to_char(a.rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       'share', case when s.asset_id is null then null else json_build_object(
         'dividend_yield', ${yieldSql},
         'market_cap', s.market_cap::float8, 'trading_volume', s.trading_volume::float8, 'lot_size', s.lot_size,
         'category', json_build_object('id', c.id, 'slug', c.slug, 'name', c.name),
         'country', case when co.code is null then null else json_build_object('code', co.code, 'name', co.name) end) end,
       -- Ex-date under T+1: the weekday before the record date (Monday's is Friday).
       'dividends', coalesce((select json_agg(json_build_object(
           'record_date', d.record_date::text,
           'ex_date', (d.record_date - case extract(isodow from d.record_date) when 1 then 3 when 7 then 2 else 1 end)::text,
           'value', d.value::text, 'currency', d.currency, 'upcoming', d.record_date >= $3::date)
         order by d.record_date desc, d.value desc) from dividends d where d.asset_id = a.id), '[]'::json)
     ) as page
     from assets a
     left join shares s on s.asset_id = a.id
     left join share_categories c on c.id = s.category_id
     left join countries co on co.code = s.country_code
     where a.type = $1 and upper(a.ticker) = upper($2)
     order by a.ticker = $2 desc
     limit 1`,
    [q.type, q.ticker, today],
  );
  return row?.page ?? null;
}
