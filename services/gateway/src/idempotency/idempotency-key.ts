import { applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeySchema } from '@invest/contracts';
import type { RpcCallOptions } from '@invest/platform/rpc/rpc-client';
import { ServiceError } from '@invest/platform/rpc/service-error';

/** The header as Fastify names it (lower case). */
export const IDEMPOTENCY_KEY = IDEMPOTENCY_KEY_HEADER.toLowerCase();

/**
 * RPC options carrying the request's `Idempotency-Key` to the service (`meta.idempotencyKey`); none when the
 * header is absent. A bad value (empty, longer than 255, spaces or non-ASCII, or the header twice) is a 422
 * naming the header, before anything goes on the bus.
 */
export function idempotencyOptions(header: unknown): RpcCallOptions {
  if (header === undefined) return {};
  const parsed = idempotencyKeySchema.safeParse(header);
  if (!parsed.success) throw ServiceError.validation({ [IDEMPOTENCY_KEY_HEADER]: [`The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to 255 characters of visible ASCII.`] });
  return { idempotencyKey: parsed.data };
}

/**
 * OpenAPI: the optional `Idempotency-Key` header of a create route; `repeat` says what a repeat answers when it is
 * not the first response (a create's: the same id, 201).
 */
export function ApiIdempotencyKey(opts: { repeat?: string } = {}) {
  return applyDecorators(
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Makes the request safe to retry (IETF draft-ietf-httpapi-idempotency-key-header). A repeat with the same key and the same body within 24 hours ' +
        `${opts.repeat ?? 'answers the first response (same id, 201) and creates nothing'}; the same key with a different body is a 422. A failed request does not use the key up. ` +
        'A repeat while the first is still being processed waits for it, or is a 409 with `Retry-After` when it takes too long. ' +
        'Keys are per user and per operation. 1-255 characters of visible ASCII, e.g. a UUID.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$', example: '8e03978e-40d5-43e8-bc93-6894a57f9324' },
    }),
  );
}
