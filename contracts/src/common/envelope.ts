import { z } from 'zod';

/** Who asks and which request chain it belongs to; travels beside every request payload. */
export const requestMetaSchema = z.object({
  userId: z.string().min(1).optional(),
  correlationId: z.string().min(1),
});
export type RequestMeta = z.infer<typeof requestMetaSchema>;

/** The body of every NATS request: `meta` beside the payload `data`. */
export interface RpcRequest<T> {
  meta: RequestMeta;
  data: T;
}

/** NATS header that carries the correlation id across services. */
export const CORRELATION_HEADER = 'x-correlation-id';
