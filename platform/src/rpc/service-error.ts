import { ErrorCode, type RequestOutcome, rpcErrorSchema, type RpcError } from '@invest/contracts';
import type { z } from 'zod';

/** A failure a service reports on purpose; crosses NATS as an RpcError and becomes an HTTP error at the gateway. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: Record<string, string[]>,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  toRpc(): RpcError {
    return {
      code: this.code,
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.extra ? { extra: this.extra } : {}),
    };
  }

  static fromRpc(body: unknown): ServiceError | undefined {
    const parsed = rpcErrorSchema.safeParse(body);
    return parsed.success ? new ServiceError(parsed.data.code, parsed.data.message, parsed.data.errors, parsed.data.extra) : undefined;
  }

  static validation(errors: Record<string, string[]>): ServiceError {
    const first = Object.values(errors)[0]?.[0] ?? 'The given data was invalid.';
    const more = Object.values(errors).flat().length - 1;
    return new ServiceError(ErrorCode.Validation, more > 0 ? `${first} (and ${more} more error${more > 1 ? 's' : ''})` : first, errors);
  }

  static notFound(what = 'Resource'): ServiceError {
    return new ServiceError(ErrorCode.NotFound, `${what} not found.`);
  }

  static conflict(message: string, extra?: Record<string, unknown>): ServiceError {
    return new ServiceError(ErrorCode.Conflict, message, undefined, extra);
  }

  /** `outcome` (sent as `extra.outcome`): whether the request may have taken effect (see RequestOutcome). */
  static unavailable(message: string, outcome?: RequestOutcome): ServiceError {
    return new ServiceError(ErrorCode.Unavailable, message, undefined, outcome ? { outcome } : undefined);
  }

  /** The `extra.outcome` of an `unavailable` error, when it says. */
  get outcome(): RequestOutcome | undefined {
    const o = this.extra?.outcome;
    return o === 'unknown' || o === 'not_done' ? o : undefined;
  }
}

/** Turns zod issues into Laravel-style field errors (`{"per_page": ["..."]}`). */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.length ? issue.path.join('.') : '_';
    (out[field] ??= []).push(issue.message);
  }
  return out;
}

/** Parses input with a schema; a failure is a 422-bound ServiceError naming each bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw ServiceError.validation(fieldErrors(result.error));
  return result.data;
}
