import { z } from 'zod';

/** HTTP header a client sets to make a create request safe to repeat (IETF draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** An idempotency key: 1-255 characters of visible ASCII (`%x21-7E`, no spaces or control characters). */
export const idempotencyKeySchema = z
  .string({ error: `The ${IDEMPOTENCY_KEY_HEADER} header must be a string.` })
  .regex(/^[\x21-\x7e]{1,255}$/, `The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to 255 characters of visible ASCII.`);

/** Who asks and which request chain it belongs to; travels beside every request payload. */
export const requestMetaSchema = z.object({
  userId: z.string().min(1).optional(),
  correlationId: z.string().min(1),
  /** The client's `Idempotency-Key` of a create request, when it sent one; the owning service stores it with the result. */
  idempotencyKey: idempotencyKeySchema.optional(),
  /**
   * When the caller stops waiting for the reply: Unix epoch milliseconds on the caller's clock. A service does
   * not start, and does not commit, work once `deadline - DEADLINE_MARGIN_MS` (platform) has passed.
   */
  deadline: z.number().int().positive().optional(),
});
export type RequestMeta = z.infer<typeof requestMetaSchema>;

/** The body of every NATS request: `meta` beside the payload `data`. */
export interface RpcRequest<T> {
  meta: RequestMeta;
  data: T;
}

/** NATS header that carries the correlation id across services. */
export const CORRELATION_HEADER = 'x-correlation-id';

/**
 * NATS header naming the event store stream of a published event (`rates-share`, `asset-custom_asset-7`): a
 * subscriber can pass over events it does not need without parsing them (a RatesUpdated is hundreds of KB).
 */
export const STREAM_HEADER = 'x-event-stream';
