import { z } from 'zod';

/**
 * A resource id from a path (`/api/portfolios/{id}`): digits or a positive integer. The services answer
 * 404, not 422, when an id fails this schema: a malformed id names no resource.
 */
export const resourceIdSchema = z.preprocess(
  (v) => (typeof v === 'string' && /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : v),
  z.number({ error: 'The id must be a positive integer.' }).int('The id must be a positive integer.').positive('The id must be a positive integer.').max(Number.MAX_SAFE_INTEGER),
);

/**
 * A decimal input (quantity, price, commission): a JSON number or a numeric string (`"10.5"`), finite,
 * at most 1e15 in magnitude. Accepts its own output, so the gateway can forward what it parsed.
 */
export function decimalSchema(label: string) {
  const message = `The ${label} must be a number.`;
  return z.preprocess(
    (v) => (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v),
    z.number({ error: message }).refine(Number.isFinite, message).refine((n) => Math.abs(n) <= 1e15, `The ${label} is too large.`),
  );
}

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
