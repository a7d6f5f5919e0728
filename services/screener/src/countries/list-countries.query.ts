import type { ListCountriesReply } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

/** Countries that have at least one share (the filter's useful values), by name. */
export const LIST_COUNTRIES_SQL = `
  select co.code, co.name, count(*)::int as shares_count
  from countries co
  join shares s on s.country_code = co.code
  join assets a on a.id = s.asset_id and a.type = 'share'
  group by co.code
  order by co.name, co.code`;

export async function listCountries(db: SqlClient): Promise<ListCountriesReply> {
  return { data: await db.query(LIST_COUNTRIES_SQL) };
}
