import type { AssetSearchRow, SearchAssetsQuery, SearchAssetsReply } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import { escapeLike } from '../shares/list-shares.query.js';
import { normalizeSearchText, rankAssets, type RankableAsset, wordsOf } from './asset-ranking.js';

/**
 * How many matching rows the database hands to the ranking. Its own order puts exact and prefix tickers and
 * name-word matches first, so the best `limit` rows are among them even when a short search matches most of
 * the catalogue.
 */
export const SEARCH_CANDIDATES = 500;

interface CandidateRow {
  id: string;
  type: AssetSearchRow['type'];
  ticker: string;
  name: string;
  short_name: string | null;
  latin_name: string | null;
  isin: string | null;
  currency: string;
  current_rate: number | null;
  price_change_percentage_24h: number | null;
  rate_updated_at: string | null;
}

/** A term for a Postgres regular expression, matched literally: every character but letters, digits and spaces escaped. */
const regexLiteral = (term: string) => term.replace(/[^\p{L}\p{N}\s]/gu, (c) => `\\${c}`);

/**
 * Candidates of a search: assets whose `search_text` (ticker, ISIN and names, lower case, `ё` as `е`) holds every
 * word of the search (or the whole search, for terms like `USD/РУБ`), of the asked type; custom assets only the
 * user's own and not being deleted, none without a user.
 */
const SEARCH_SQL = `
  select a.id::text, a.type, a.ticker, a.name, a.short_name, a.latin_name, a.isin, a.currency,
         a.current_rate::float8 as current_rate,
         a.price_change_percentage_24h::float8 as price_change_percentage_24h,
         to_char(a.rate_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as rate_updated_at
  from assets a
  where ($1::text is null or a.type = $1)
    and ($2::text[] is null
         -- LIKE's default escape character is the backslash (\`like all\` takes no ESCAPE clause).
         or a.search_text like all ($2::text[])
         or a.search_text like $3 escape '\\')
    and (a.type <> 'custom_asset'
         or exists (select 1 from custom_assets ca where ca.asset_id = a.id and ca.owner_user_id = $4 and ca.deleting_since is null))
  order by translate(lower(a.ticker), 'ё', 'е') = $5 desc,
           translate(lower(a.ticker), 'ё', 'е') like $6 escape '\\' desc,
           $7::text is not null and a.search_text ~ $7 desc,
           length(a.ticker), a.ticker, a.id
  limit ${SEARCH_CANDIDATES}`;

/** Assets of every type matching the search, ranked by `rankAssets`; at most `limit`. */
export async function searchAssets(db: SqlClient, query: SearchAssetsQuery, userId?: string): Promise<SearchAssetsReply> {
  const term = query.search === undefined ? '' : normalizeSearchText(query.search.trim());
  const words = wordsOf(term);
  const firstWord = words[0];
  const rows = await db.query<CandidateRow>(SEARCH_SQL, [
    query.type ?? null,
    term ? (words.length ? words : [term]).map((w) => `%${escapeLike(w)}%`) : null,
    `%${escapeLike(term)}%`,
    userId ?? null,
    term,
    `${escapeLike(term)}%`,
    firstWord ? `(^|[^[:alnum:]])${regexLiteral(firstWord)}` : null,
  ]);
  const candidates: (RankableAsset & { row: CandidateRow })[] = rows.map((row) => ({
    id: Number(row.id),
    type: row.type,
    ticker: row.ticker,
    name: row.name,
    shortName: row.short_name,
    latinName: row.latin_name,
    isin: row.isin,
    row,
  }));
  const data = rankAssets(candidates, term)
    .slice(0, query.limit)
    .map(({ id, row }) => ({
      id,
      type: row.type,
      ticker: row.ticker,
      name: row.name,
      isin: row.isin,
      currency: row.currency,
      current_rate: row.current_rate,
      price_change_percentage_24h: row.price_change_percentage_24h,
      rate_updated_at: row.rate_updated_at,
    }));
  return { data };
}
