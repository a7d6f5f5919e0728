import { HttpException } from '@nestjs/common';
import { ErrorCode, RequestOutcome } from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';

/** A Laravel-shaped error answer: `{"message": "...", "errors": {...}}` plus a few documented extras. */
export interface HttpErrorBody {
  message: string;
  errors?: Record<string, string[]>;
  code?: string;
  limit?: unknown;
  resets_at?: unknown;
  /** On a 503: `unknown` when a write may have been carried out (the service did not answer in time), else `not_done`. */
  outcome?: RequestOutcome;
  /** On a 409 for something still in use: where (`[{type, id}]`, e.g. a custom asset in a portfolio). */
  used_in?: unknown;
}

export interface HttpError {
  status: number;
  body: HttpErrorBody;
  /** Response headers the answer carries (`retry-after` on a 409 the client may simply repeat later). */
  headers?: Record<string, string>;
  /** Set when the error is ours (500): log it in full, never send it. */
  internal?: unknown;
}

/** The one place ServiceError codes (contracts ErrorCode) become HTTP statuses. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  [ErrorCode.Validation]: 422,
  [ErrorCode.Unauthenticated]: 401,
  [ErrorCode.Forbidden]: 403,
  [ErrorCode.PlanRequired]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.Conflict]: 409,
  [ErrorCode.RateLimited]: 429,
  [ErrorCode.Unavailable]: 503,
  [ErrorCode.Internal]: 500,
};

export const SERVER_ERROR: HttpErrorBody = { message: 'Server Error' };
export const UNAVAILABLE_MESSAGE = 'Service temporarily unavailable. Please try again shortly.';
const OUTCOME_UNKNOWN_MESSAGE =
  'The service did not answer in time; the request may or may not have been carried out. Repeat it with the same Idempotency-Key, or check before repeating it.';
/** Methods that change nothing: whatever happened to them, nothing was done. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Messages for statuses whose cause must not be echoed (Laravel's defaults where it has them). */
const DEFAULT_MESSAGES: Readonly<Record<number, string>> = {
  400: 'Bad Request.',
  401: 'Unauthenticated.',
  403: 'This action is unauthorized.',
  404: 'Not Found.',
  405: 'Method Not Allowed.',
  406: 'Not Acceptable.',
  409: 'Conflict.',
  413: 'The request body is too large.',
  414: 'The URL is too long.',
  415: 'Unsupported Media Type.',
  422: 'The given data was invalid.',
  429: 'Too Many Attempts.',
  503: UNAVAILABLE_MESSAGE,
};

/** Fastify's own request errors (before any handler runs), by FastifyError code. */
const FASTIFY_MESSAGES: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty but the content type is application/json.',
  ERR_BODY_NOT_UTF8: 'The request body is not valid UTF-8.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Media Type.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The request body does not match its Content-Length.',
  FST_ERR_BAD_URL: 'The URL is malformed.',
};

/**
 * Maps anything a request can throw to a status and a Laravel-shaped body. Unknown errors become a
 * generic 500 that reveals nothing; the caller logs `internal`. `method`: the request's HTTP method (a 503
 * of a write whose service did not answer in time says the outcome is unknown).
 */
export function toHttpError(exception: unknown, opts: { method?: string } = {}): HttpError {
  if (exception instanceof ServiceError) return fromServiceError(exception, opts.method);
  if (exception instanceof HttpException) return fromHttpException(exception);
  const fastify = fastifyStatus(exception);
  if (fastify) return fastify;
  return { status: 500, body: SERVER_ERROR, internal: exception };
}

function fromServiceError(e: ServiceError, method: string | undefined): HttpError {
  const status = STATUS_BY_CODE[e.code] ?? 500;
  switch (e.code) {
    case ErrorCode.Validation:
      return { status, body: { message: e.message || DEFAULT_MESSAGES[422]!, errors: e.errors ?? {} } };
    case ErrorCode.PlanRequired:
      return { status, body: { message: e.message, code: 'plan_required', ...(e.extra?.limit !== undefined ? { limit: e.extra.limit } : {}) } };
    case ErrorCode.RateLimited:
      // `code` names the limit when a service says which (chat: `message_limit`, `token_budget`).
      return {
        status,
        body: { message: e.message, ...(typeof e.extra?.code === 'string' ? { code: e.extra.code } : {}), limit: e.extra?.limit ?? null, resets_at: e.extra?.resets_at ?? null },
      };
    case ErrorCode.Unavailable: {
      // The real reason (which service, how long) goes to the log, not to the client, unless the service
      // wrote the message for the client (`extra.public`, e.g. "the payment provider is unreachable"). A read
      // changed nothing; a write whose service did not answer in time may have committed.
      const unknown = e.outcome === RequestOutcome.Unknown && (method === undefined || !SAFE_METHODS.has(method.toUpperCase()));
      if (unknown) return { status, body: { message: OUTCOME_UNKNOWN_MESSAGE, outcome: RequestOutcome.Unknown }, internal: e };
      return { status, body: { message: e.extra?.public === true ? e.message : UNAVAILABLE_MESSAGE, outcome: RequestOutcome.NotDone }, internal: e };
    }
    case ErrorCode.Conflict: {
      // `extra.retry_after` (seconds): the conflict passes by itself (a request with the same Idempotency-Key still running).
      const retryAfter = e.extra?.retry_after;
      return {
        status,
        body: { message: e.message || DEFAULT_MESSAGES[409]!, ...(e.extra?.used_in ? { used_in: e.extra.used_in } : {}) },
        ...(Number.isSafeInteger(retryAfter) && (retryAfter as number) > 0 ? { headers: { 'retry-after': String(retryAfter) } } : {}),
      };
    }
    case ErrorCode.Internal:
      return { status: 500, body: SERVER_ERROR, internal: e };
    default:
      return { status, body: { message: e.message || DEFAULT_MESSAGES[status] || 'Error.' } };
  }
}

function fromHttpException(e: HttpException): HttpError {
  const status = e.getStatus();
  if (status >= 500 && status !== 503) return { status: 500, body: SERVER_ERROR, internal: e };
  // Fastify errors reach Nest's filters wrapped in an HttpException (FastifyAdapter.mapException).
  const cause = fastifyStatus(e.cause);
  if (cause) return cause;
  if (status === 404 || status === 405 || status === 503) return { status, body: { message: DEFAULT_MESSAGES[status]! } };
  const response = e.getResponse();
  const message =
    typeof response === 'string'
      ? response
      : typeof (response as { message?: unknown }).message === 'string'
        ? (response as { message: string }).message
        : DEFAULT_MESSAGES[status] ?? e.message;
  return { status, body: { message } };
}

/** A FastifyError or http-errors style 4xx error (numeric statusCode), or undefined. */
function fastifyStatus(err: unknown): HttpError | undefined {
  if (!(err instanceof Error)) return undefined;
  const { statusCode, code } = err as Error & { statusCode?: unknown; code?: unknown };
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode >= 500) return undefined;
  const message = (typeof code === 'string' && FASTIFY_MESSAGES[code]) || DEFAULT_MESSAGES[statusCode] || 'Bad Request.';
  return { status: statusCode, body: { message } };
}
