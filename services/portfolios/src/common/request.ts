import { ErrorCode, idempotencyKeySchema, type RequestMeta } from '@invest/contracts';
import { IDEMPOTENCY_KEY_FIELD, parseOrThrow, ServiceError } from '@invest/platform';
import { z } from 'zod';

/** The acting user of a request; every request of this service acts for one. */
export function requireUser(meta: Partial<RequestMeta> | undefined): string {
  const userId = meta?.userId;
  if (!userId) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
  return userId;
}

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

/** The request's `Idempotency-Key` (checked again here: a bad one is a 422 naming the header), or undefined. */
export function idempotencyKeyOf(meta: Partial<RequestMeta> | undefined): string | undefined {
  const key: unknown = meta?.idempotencyKey;
  if (key === undefined) return undefined;
  const parsed = idempotencyKeySchema.safeParse(key);
  if (!parsed.success) throw ServiceError.validation({ [IDEMPOTENCY_KEY_FIELD]: parsed.error.issues.map((i) => i.message) });
  return parsed.data;
}
