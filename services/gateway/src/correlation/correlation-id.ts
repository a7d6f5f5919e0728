import { randomUUID } from 'node:crypto';

/** Request and response header carrying the correlation id at the HTTP edge. */
export const REQUEST_ID_HEADER = 'x-request-id';

const ACCEPTED = /^[A-Za-z0-9._:-]{8,128}$/;

/**
 * The correlation id of a request: the client's `X-Request-Id` when it is a single value of 8-128
 * characters from `[A-Za-z0-9._:-]` (safe for logs and NATS headers), otherwise a fresh UUID.
 */
export function correlationIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && ACCEPTED.test(header) ? header : randomUUID();
}
