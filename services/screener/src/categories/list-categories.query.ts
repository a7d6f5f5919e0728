import type { ListShareCategoriesReply } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

/** Every share category (also those with no shares: they are valid filter values), by id. */
export const LIST_SHARE_CATEGORIES_SQL = `
  select c.id, c.slug, c.name, count(a.id)::int as shares_count
  from share_categories c
  left join shares s on s.category_id = c.id
  left join assets a on a.id = s.asset_id and a.type = 'share'
  group by c.id
  order by c.id`;

export async function listShareCategories(db: SqlClient): Promise<ListShareCategoriesReply> {
  return { data: await db.query(LIST_SHARE_CATEGORIES_SQL) };
}
