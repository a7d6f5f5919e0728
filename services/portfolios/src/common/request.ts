import { parseOrThrow, ServiceError } from '@invest/platform';
import { z } from 'zod';

/**
 * Parses a request whose id fields come from a path: a malformed id names no resource, so it is a 404
 * (`what` not found), while every other bad field is a 422.
 */
export function parseRequest<S extends z.ZodObject>(schema: S, input: unknown, ids: Record<string, string>): z.infer<S> {
  const raw = (input ?? {}) as Record<string, unknown>;
  for (const [field, what] of Object.entries(ids)) {
    const idSchema = schema.shape[field] as z.ZodType | undefined;
    if (!idSchema || !idSchema.safeParse(raw[field]).success) throw ServiceError.notFound(what);
  }
  return parseOrThrow(schema, raw);
}
