import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { SpanContext } from '@opentelemetry/api';

/** What every log line and outgoing message of one request carries. */
export interface RequestContext {
  correlationId: string;
  userId?: string;
  /** When the caller stops waiting (epoch ms, the caller's clock), for a request that came with one. */
  deadline?: number;
  /** The span this work runs in (tracing): what it calls, sends or records is that span's child. */
  trace?: SpanContext;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `ctx` as the current request context (for logs and outgoing NATS headers). */
export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

/** The current request context, if the code runs inside one. */
export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/** The current correlation id, or a fresh one when the code runs outside a request (jobs, consumers). */
export function correlationIdOrNew(): string {
  return storage.getStore()?.correlationId ?? randomUUID();
}
