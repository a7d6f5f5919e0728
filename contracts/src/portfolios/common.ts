import { z } from 'zod';

/**
 * A resource id from a path (`/api/portfolios/{id}`): digits or a positive integer. The services answer
 * 404, not 422, when an id fails this schema: a malformed id names no resource.
 */
export const resourceIdSchema = z.preprocess(
  // Digits only: ` 1` or `1%0A` names no resource (a path segment is taken as sent).
  (v) => (typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v),
  z.number({ error: 'The id must be a positive integer.' }).int('The id must be a positive integer.').positive('The id must be a positive integer.').max(Number.MAX_SAFE_INTEGER),
);

/**
 * A stored free-text name: Postgres text cannot hold NUL and jsonb (the event store) rejects a lone UTF-16
 * surrogate; without this check such a name is a 500 instead of a 422.
 */
export function storableText<T extends z.ZodType<string>>(schema: T, label: string) {
  return schema
    .refine((s) => !s.includes('\u0000'), `The ${label} field must not contain NUL characters.`)
    .refine((s) => !/\p{Cs}/u.test(s), `The ${label} field must be valid Unicode text.`);
}

/** ISO timestamps as the services send them. */
export const isoTimestampSchema = z.string();
