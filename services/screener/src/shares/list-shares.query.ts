import { type ListSharesQuery, type ListSharesReply, type ShareRow, type ShareSortColumn, pageMeta } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import { dividendYieldSql, type YieldColumns } from './dividend-yield.js';

export interface SqlStatement {
  sql: string;
  params: unknown[];
}

/** The single row the list statement returns: the filtered total and the page's rows, already shaped. */
export interface ListSharesResultRow {
  total: number;
  data: ShareRow[];
}

/** Sort column → SQL over the `filtered`/`page` CTE columns. A whitelist: user input never reaches SQL text. */
const SORT_COLUMN_SQL: Record<ShareSortColumn, string> = {
  price_change_percentage_24h: 'price_change_percentage_24h',
  price_change_percentage_7d: 'price_change_percentage_7d',
  dividend_yield: 'dividend_yield',
  market_cap: 'market_cap',
  trading_volume: 'trading_volume',
};

/** Escapes LIKE wildcards (`%`, `_`) and the escape character itself, so the term matches literally. */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The search term as stored in `assets.search_text`: lower case, `ё` folded to `е`. */
export function normalizeSearch(term: string): string {
  return term.toLowerCase().replace(/ё/g, 'е');
}

const columnsOf = (alias: string): YieldColumns => ({
  id: `${alias}.id`,
  currency: `${alias}.currency`,
  price: `${alias}.current_rate`,
  dividendsSyncedAt: `${alias}.dividends_synced_at`,
});

/**
 * Builds the one statement that answers a screener page: filters, sorts (nulls last in both directions,
 * ties broken by asset id ascending), pages, counts the filtered total and shapes every row as the
 * contract's JSON, all in one round trip. Returns exactly one row: `{ total, data }` (see
 * ListSharesResultRow). `today` is the market date (`YYYY-MM-DD` in MARKET_TZ) the dividend window starts at.
 *
 * Exported for the benchmark, which runs the same SQL from a plain Fastify + pg handler.
 */
export function buildListSharesSql(query: ListSharesQuery, today: string): SqlStatement {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(today)) throw new Error(`today must be YYYY-MM-DD, got ${today}`);
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };

  const todayParam = param(today);
  const where = [`a.type = 'share'`];
  if (query.category !== undefined) {
    where.push(
      typeof query.category === 'number'
        ? `s.category_id = ${param(query.category)}::int`
        : `s.category_id = (select c.id from share_categories c where c.slug = ${param(query.category)})`,
    );
  }
  if (query.country_code !== undefined) where.push(`s.country_code = ${param(query.country_code.toUpperCase())}`);
  if (query.search !== undefined) {
    where.push(`a.search_text like ${param(`%${escapeLike(normalizeSearch(query.search))}%`)} escape '\\'`);
  }
  if (query.market_cap_min !== undefined) where.push(`s.market_cap >= ${param(query.market_cap_min)}::numeric`);
  if (query.market_cap_max !== undefined) where.push(`s.market_cap <= ${param(query.market_cap_max)}::numeric`);
  // The yield is computed, not stored: its bounds apply to the computed column (null, unknown, never passes).
  const yieldWhere: string[] = [];
  if (query.dividend_yield_min !== undefined) yieldWhere.push(`y.dividend_yield >= ${param(query.dividend_yield_min)}::float8`);
  if (query.dividend_yield_max !== undefined) yieldWhere.push(`y.dividend_yield <= ${param(query.dividend_yield_max)}::float8`);

  const sortBy = SORT_COLUMN_SQL[query.sort];
  const direction = query.direction === 'asc' ? 'asc' : 'desc';
  // Sorting or filtering by yield needs it for every filtered row; otherwise only the page's rows compute it.
  const yieldPerRow = query.sort === 'dividend_yield' || yieldWhere.length > 0;
  const orderBy = (alias: string) => `${alias}.${sortBy} ${direction} nulls last, ${alias}.id asc`;
  const limit = param(query.per_page);
  const offset = param((query.page - 1) * query.per_page);

  const rows = `select a.id, a.ticker, a.isin, a.name, a.currency, a.current_rate,
         a.price_change_percentage_24h, a.price_change_percentage_7d,
         coalesce(a.rate_updated_at, a.updated_at) as updated_at,
         s.market_cap, s.trading_volume, s.category_id, s.country_code, s.dividends_synced_at${
           yieldPerRow ? `,\n         ${dividendYieldSql({ ...columnsOf('a'), dividendsSyncedAt: 's.dividends_synced_at' }, todayParam)} as dividend_yield` : ''
         }
  from shares s
  join assets a on a.id = s.asset_id
  where ${where.join('\n    and ')}`;

  const sql = `with filtered as (
  ${yieldWhere.length ? `select y.* from (${rows}) y\n  where ${yieldWhere.join(' and ')}` : rows}
), page as (
  select f.* from filtered f
  order by ${orderBy('f')}
  limit ${limit}::int offset ${offset}::bigint
), shaped as (
  select p.*${yieldPerRow ? '' : `, ${dividendYieldSql(columnsOf('p'), todayParam)} as dividend_yield`}
  from page p
)
select (select count(*) from filtered)::int as total,
       coalesce((
         select json_agg(json_build_object(
                  'id', r.id,
                  'asset', r.ticker,
                  'isin', r.isin,
                  'name', r.name,
                  'current_rate', r.current_rate,
                  'price_change_percentage_24h', r.price_change_percentage_24h,
                  'price_change_percentage_7d', r.price_change_percentage_7d,
                  'dividend_yield', r.dividend_yield,
                  'market_cap', r.market_cap,
                  'trading_volume', r.trading_volume,
                  'category', json_build_object('id', c.id, 'slug', c.slug, 'name', c.name),
                  'country', case when co.code is null then null else json_build_object('code', co.code, 'name', co.name) end,
                  'currency', r.currency,
                  'updated_at', to_char(r.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                ) order by ${orderBy('r')})
         from shaped r
         join share_categories c on c.id = r.category_id
         left join countries co on co.code = r.country_code
       ), '[]'::json) as data`;
  return { sql, params };
}

/** Runs the list statement and wraps it as a page (`{ data, meta }`; the gateway adds `links`). */
export async function listShares(db: SqlClient, query: ListSharesQuery, today: string): Promise<ListSharesReply> {
  const { sql, params } = buildListSharesSql(query, today);
  const [row] = await db.query<ListSharesResultRow>(sql, params, { prepare: true });
  const data = row?.data ?? [];
  return { data, meta: pageMeta(query, row?.total ?? 0, data.length) };
}
