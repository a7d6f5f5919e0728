import { z } from 'zod';

/** Error codes a service may answer with; the gateway maps each one to an HTTP status. */
export const ErrorCode = {
  Validation: 'validation_failed',
  Unauthenticated: 'unauthenticated',
  Forbidden: 'forbidden',
  PlanRequired: 'plan_required',
  NotFound: 'not_found',
  Conflict: 'conflict',
  RateLimited: 'rate_limited',
  Unavailable: 'unavailable',
  Internal: 'internal',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The error body a service replies with over NATS (field errors are Laravel-shaped: field -> messages). */
export const rpcErrorSchema = z.object({
  code: z.enum(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]),
  message: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type RpcError = z.infer<typeof rpcErrorSchema>;

/**
 * On an `unavailable` error: whether the request may have taken effect. `unknown`: the caller stopped waiting
 * while the request was on its way or being handled, so a write may have committed (repeat it with the same
 * `Idempotency-Key`); `not_done`: nothing was changed (nobody received it, or the service refused it).
 */
export const RequestOutcome = { Unknown: 'unknown', NotDone: 'not_done' } as const;
export type RequestOutcome = (typeof RequestOutcome)[keyof typeof RequestOutcome];
