import { z } from 'zod';

/** Largest page number: beyond it a page is certainly empty, and offsets stay far inside Postgres bigint. */
export const MAX_PAGE = 2_147_483_647;

/**
 * A whole number from a query string: decimal digits only (`0x10`, `1e3`, `+1`, ` 50` are refused rather than
 * read as 16, 1000, 1, 50); an empty value means "not given" and takes the default. A number passes as it is,
 * so a service parses the gateway's output again.
 */
export function queryIntegerSchema(name: string, opts: { min: number; max: number; default: number }) {
  const field = `The ${name.replace(/_/g, ' ')} field`;
  const notDigits = `${field} must be a whole number written with the digits 0-9 only.`;
  return z.preprocess(
    // A digit string too long for a double still says "too large", not "not a number".
    (v) => (v === '' ? undefined : typeof v === 'string' && /^\d+$/.test(v) ? Math.min(Number(v), opts.max + 1) : v),
    z
      .number({ error: notDigits })
      .int(notDigits)
      .min(opts.min, `${field} must be at least ${opts.min}.`)
      .max(opts.max, `${field} must not be greater than ${opts.max}.`)
      .default(opts.default),
  );
}

/** Laravel API-resource paging: `?page=&per_page=` (default 20, max 100). */
export const pageQuerySchema = z.object({
  page: queryIntegerSchema('page', { min: 1, max: MAX_PAGE, default: 1 }),
  per_page: queryIntegerSchema('per_page', { min: 1, max: 100, default: 20 }),
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
