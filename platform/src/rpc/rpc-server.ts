import { randomUUID } from 'node:crypto';
import {
  type ArgumentsHost,
  Catch,
  type CallHandler,
  type ExecutionContext,
  type INestMicroservice,
  type NestInterceptor,
  type RpcExceptionFilter,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, type NatsContext, ServerNats } from '@nestjs/microservices';
import { CORRELATION_HEADER, ErrorCode, RequestOutcome, type RequestMeta, type RpcError } from '@invest/contracts';
import { Observable, throwError } from 'rxjs';
import { deadlinePassed } from '../context/deadline.js';
import { runWithContext } from '../context/request-context.js';
import { type Logger, PinoNestLogger } from '../logging/logger.js';
import { ConcurrencyError, EventIdConflictError } from '../event-store/event-store.js';
import { busSubject, unprefixedSubject } from '../messaging/bus-prefix.js';
import { natsConnectionOptions } from '../messaging/nats-connection.js';
import { endSpan, SpanKind, startSpan, TRACEPARENT } from '../tracing/tracing.js';
import { ServiceError } from './service-error.js';
import { rpcMetrics } from '../metrics/platform-metrics.js';

/**
 * Runs each NATS request inside a request context (correlation id from the header, else the envelope, and the
 * caller's deadline) and logs its outcome, so every log line of the handler carries the correlation id. A
 * request whose deadline has passed (it waited in a queue, or the process was paused) is not started.
 */
export class RpcContextInterceptor implements NestInterceptor {
  private readonly metrics = rpcMetrics();

  constructor(
    private readonly logger: Logger,
    /** Left out of span names, so a trace reads the same in every environment. */
    private readonly busPrefix = '',
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const rpc = context.switchToRpc();
    const data = rpc.getData() as { meta?: Partial<RequestMeta> } | undefined;
    const natsCtx = rpc.getContext<NatsContext>();
    const headers = natsCtx.getHeaders?.() as { get(k: string): string } | undefined;
    const correlationId = headers?.get(CORRELATION_HEADER) || data?.meta?.correlationId || randomUUID();
    const userId = data?.meta?.userId;
    const rawDeadline = data?.meta?.deadline;
    const deadline = typeof rawDeadline === 'number' && Number.isFinite(rawDeadline) ? rawDeadline : undefined;
    const subject = natsCtx.getSubject();
    const name = unprefixedSubject(this.busPrefix, subject) ?? subject;
    const span = startSpan(`rpc ${name}`, SpanKind.SERVER, headers?.get(TRACEPARENT) || undefined, { 'messaging.destination.name': subject });
    const trace = span.spanContext();
    const counted = (outcome: string, started: number) => {
      const labels = { subject: name, outcome };
      this.metrics.requests.inc(labels);
      this.metrics.duration.observe(labels, (performance.now() - started) / 1000);
    };
    return new Observable((subscriber) =>
      runWithContext({ correlationId, ...(userId ? { userId } : {}), ...(deadline !== undefined ? { deadline } : {}), trace }, () => {
        if (deadlinePassed(deadline)) {
          this.logger.warn({ subject, deadline: new Date(deadline!).toISOString(), lateMs: Date.now() - deadline! }, 'rpc deadline passed before start; not started');
          endSpan(span, 'deadline passed');
          counted(ErrorCode.Unavailable, performance.now());
          subscriber.error(ServiceError.unavailable('The request reached the service after its deadline; it was not started.', RequestOutcome.NotDone));
          return;
        }
        const started = performance.now();
        const sub = next.handle().subscribe({
          next: (v) => subscriber.next(v),
          error: (e: unknown) => {
            const code =
              e instanceof ServiceError ? e.code : e instanceof ConcurrencyError || e instanceof EventIdConflictError ? ErrorCode.Conflict : ErrorCode.Internal;
            this.logger.debug({ subject, ms: +(performance.now() - started).toFixed(2), code }, 'rpc failed');
            span.setAttribute('rpc.error_code', code);
            counted(code, started);
            endSpan(span, e);
            subscriber.error(e);
          },
          complete: () => {
            this.logger.debug({ subject, ms: +(performance.now() - started).toFixed(2) }, 'rpc handled');
            counted('ok', started);
            endSpan(span);
            subscriber.complete();
          },
        });
        return () => sub.unsubscribe();
      }),
    );
  }
}

/**
 * Converts anything a handler throws into an RpcError; unexpected errors are logged and never leak details.
 * A version conflict that outlived `handleCommand`'s retries is the client's race, not our fault: 409.
 */
export function toRpcError(exception: unknown, logger: Logger): RpcError {
  if (exception instanceof ServiceError) return exception.toRpc();
  if (exception instanceof ConcurrencyError) {
    logger.info({ stream: exception.streamName, expected: exception.expected, actual: exception.actual }, 'version conflict answered 409');
    return { code: ErrorCode.Conflict, message: 'The resource was changed by another request. Reload it and try again.' };
  }
  if (exception instanceof EventIdConflictError) {
    logger.info({ eventIds: exception.eventIds }, 'event id reused answered 409');
    return { code: ErrorCode.Conflict, message: 'This request reuses an identifier that belongs to something else.' };
  }
  logger.error({ err: exception }, 'unhandled error in rpc handler');
  return { code: ErrorCode.Internal, message: 'Internal error.' };
}

@Catch()
export class RpcErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly logger: Logger) {}
  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => toRpcError(exception, this.logger));
  }
}

export interface StartServiceOptions {
  /** Service name; also its NATS queue group, so instances share the load. */
  name: string;
  natsUrl: string;
  logger: Logger;
  /** Prefix of every subject (`BUS_PREFIX`): isolates test runs and environments sharing one NATS. */
  busPrefix?: string;
}

/** In `extra` of the internal error answering a reply too large for one NATS message: the caller may ask for less. */
export const REPLY_TOO_LARGE = 'reply_too_large';

/** Whether `err` is the answer to a reply too large for one NATS message (a smaller request may go through). */
export const isReplyTooLarge = (err: unknown): boolean => err instanceof ServiceError && err.code === ErrorCode.Internal && err.extra?.[REPLY_TOO_LARGE] === true;

/**
 * NATS server strategy that listens on `<prefix>.<pattern>`; RpcClient sends with the same prefix. A reply larger
 * than the server's `max_payload` (1 MB by default) cannot be sent: it is answered as an internal error at once,
 * logged with its size, where the caller used to wait out its timeout and see the service as unavailable.
 */
export class PrefixedNatsServer extends ServerNats {
  constructor(
    options: ConstructorParameters<typeof ServerNats>[0],
    private readonly prefix: string,
    private readonly rpcLogger?: Logger,
  ) {
    super(options);
  }

  override getPublisher(natsMsg: Parameters<ServerNats['getPublisher']>[0], id: string, ctx: NatsContext): (response: object) => unknown {
    const publish = super.getPublisher(natsMsg, id, ctx) as (response: object) => unknown;
    return (response) => {
      try {
        return publish(response);
      } catch (err) {
        if (!/max_payload/i.test(err instanceof Error ? err.message : '')) throw err;
        this.rpcLogger?.error({ err, subject: natsMsg.subject, bytes: Buffer.byteLength(JSON.stringify(response)) }, 'rpc reply larger than the NATS max_payload; answered as an internal error');
        return publish({ err: { code: ErrorCode.Internal, message: 'The answer is too large to send.', extra: { [REPLY_TOO_LARGE]: true } }, isDisposed: true });
      }
    };
  }
  override addHandler(pattern: unknown, callback: Parameters<ServerNats['addHandler']>[1], isEventHandler?: boolean, extras?: Record<string, unknown>) {
    const normalized = this.normalizePattern(pattern as string);
    super.addHandler(busSubject(this.prefix, normalized), callback, isEventHandler, extras);
  }
}

/** Boots a NestJS module as a NATS microservice with context propagation and error mapping. */
export async function startRpcService(module: unknown, opts: StartServiceOptions): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module as never, {
    // All servers of NATS_URL, reconnecting forever (see natsConnectionOptions).
    strategy: new PrefixedNatsServer({ ...natsConnectionOptions(opts.natsUrl, opts.name), queue: opts.name }, opts.busPrefix ?? '', opts.logger),
    logger: new PinoNestLogger(opts.logger),
    bufferLogs: false,
  });
  app.useGlobalInterceptors(new RpcContextInterceptor(opts.logger, opts.busPrefix));
  app.useGlobalFilters(new RpcErrorFilter(opts.logger));
  app.enableShutdownHooks();
  await app.listen();
  return app;
}
