import { ErrorCode, idempotencyKeySchema, type RequestMeta } from '@invest/contracts';
import { IDEMPOTENCY_KEY_FIELD } from '../idempotency/idempotency.js';
import { ServiceError } from './service-error.js';

/** The acting user of a request (`meta.userId`); a request that needs one and has none is `unauthenticated`. */
export function requireUser(meta: Partial<RequestMeta> | undefined): string {
  const userId = meta?.userId;
  if (!userId) throw new ServiceError(ErrorCode.Unauthenticated, 'Unauthenticated.');
  return userId;
}

/** The request's `Idempotency-Key`, checked again at the service (a bad one is a 422 naming the header), or undefined. */
export function idempotencyKeyOf(meta: Partial<RequestMeta> | undefined): string | undefined {
  const key: unknown = meta?.idempotencyKey;
  if (key === undefined) return undefined;
  const parsed = idempotencyKeySchema.safeParse(key);
  if (!parsed.success) throw ServiceError.validation({ [IDEMPOTENCY_KEY_FIELD]: parsed.error.issues.map((i) => i.message) });
  return parsed.data;
}
