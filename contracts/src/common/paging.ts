import { z } from 'zod';

/** Laravel API-resource paging: `?page=&per_page=` (default 20, max 100). */
export const pageQuerySchema = z.object({
  page: z.coerce.number({ error: 'The page must be an integer.' }).int('The page must be an integer.').min(1, 'The page must be at least 1.').default(1),
  per_page: z.coerce
    .number({ error: 'The per page must be an integer.' })
    .int('The per page must be an integer.')
    .min(1, 'The per page must be at least 1.')
    .max(100, 'The per page may not be greater than 100.')
    .default(20),
});
export type PageQuery = z.infer<typeof pageQuerySchema>;

/** A page of rows as a service returns it; the gateway adds `links` (it knows the public URL). */
export interface Page<T> {
  data: T[];
  meta: { current_page: number; per_page: number; total: number; last_page: number; from: number | null; to: number | null };
}

/** Builds the `meta` block of a page from the query and the total row count. */
export function pageMeta(query: PageQuery, total: number, rowsOnPage: number): Page<never>['meta'] {
  const from = rowsOnPage > 0 ? (query.page - 1) * query.per_page + 1 : null;
  return {
    current_page: query.page,
    per_page: query.per_page,
    total,
    last_page: Math.max(1, Math.ceil(total / query.per_page)),
    from,
    to: from === null ? null : from + rowsOnPage - 1,
  };
}
