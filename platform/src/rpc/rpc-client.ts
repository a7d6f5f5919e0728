import { randomUUID } from 'node:crypto';
import { type ClientProxy, ClientProxyFactory, NatsRecordBuilder, Transport } from '@nestjs/microservices';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/nats-core';
import { CORRELATION_HEADER, ErrorCode, RequestOutcome, type RequestMeta } from '@invest/contracts';
import { type Observable, TimeoutError, catchError, throwError, timeout } from 'rxjs';
import { deadlinePassed } from '../context/deadline.js';
import { currentContext } from '../context/request-context.js';
import { busSubject } from '../messaging/bus-prefix.js';
import { natsConnectionOptions } from '../messaging/nats-connection.js';
import { endSpan, SpanKind, startSpan, TRACEPARENT, traceparentOf } from '../tracing/tracing.js';
import { ServiceError } from './service-error.js';

export interface RpcCallOptions {
  userId?: string;
  /** Overrides the client's default timeout. */
  timeoutMs?: number;
  /** The client's `Idempotency-Key` of a create request; sent as `meta.idempotencyKey` (omitted when unset). */
  idempotencyKey?: string;
}


/**
 * Sends NATS requests to services: wraps the payload with `meta` (user, correlation id, deadline), sets the
 * correlation header, bounds the wait, and turns replies that are errors into ServiceError.
 *
 * `meta.deadline` is when this client stops waiting (now + timeout); a call made while handling a request
 * with a deadline (a service asking another) inherits the earlier of the two, and waits no longer than it.
 */
export class RpcClient {
  constructor(
    private readonly proxy: ClientProxy,
    private readonly defaultTimeoutMs: number,
    /** Same `BUS_PREFIX` as the services' PrefixedNatsServer. */
    private readonly busPrefix = '',
  ) {}

  static create(opts: { natsUrl: string; name: string; defaultTimeoutMs: number; busPrefix?: string }): RpcClient {
    const proxy = ClientProxyFactory.create({ transport: Transport.NATS, options: natsConnectionOptions(opts.natsUrl, opts.name) });
    return new RpcClient(proxy, opts.defaultTimeoutMs, opts.busPrefix ?? '');
  }

  connect(): Promise<unknown> {
    return this.proxy.connect();
  }

  close(): Promise<unknown> | unknown {
    this.closed = true;
    return this.proxy.close();
  }

  /**
   * One request, one reply. Goes straight through `nc.request` (one shared reply subscription) in the
   * packet format of Nest's NATS transport, instead of Nest's client, which subscribes and unsubscribes
   * an inbox for every call; replies that are streams use `stream()`.
   */
  async request<T>(subject: string, data: unknown, opts: RpcCallOptions = {}): Promise<T> {
    const now = Date.now();
    const inherited = currentContext()?.deadline;
    // The request being handled is past its deadline: its own work will not commit, so asking further is pointless.
    if (deadlinePassed(inherited, now)) throw ServiceError.unavailable("The request's deadline has passed.", RequestOutcome.NotDone);
    const ms = Math.max(1, Math.min(opts.timeoutMs ?? this.defaultTimeoutMs, inherited === undefined ? Infinity : inherited - now));
    const span = startSpan(`rpc ${subject}`, SpanKind.CLIENT, currentContext()?.trace, { 'messaging.destination.name': subject });
    const { meta, headers } = this.envelope(opts, now + ms, traceparentOf(span.spanContext()));
    const service = subject.split('.')[0] ?? subject;
    const target = busSubject(this.busPrefix, subject);
    // After close() (shutdown) a late request must not open a new connection that nothing would close.
    if (this.closed) {
      endSpan(span, 'closed');
      throw ServiceError.unavailable(`The ${service} service is not available.`, RequestOutcome.NotDone);
    }
    let failure: unknown;
    try {
      // A connection that was closed (by close(), or one that gave up reconnecting) is never used again.
      if (!this.nc || this.nc.isClosed()) this.nc = await this.connectNats();
      const reply = await this.nc.request(target, JSON.stringify({ pattern: target, data: { meta, data }, id: randomUUID() }), {
        timeout: ms,
        headers,
      });
      const packet = reply.json<{ response?: T; err?: unknown }>();
      if (packet.err !== undefined && packet.err !== null) throw answeredError(toServiceError(packet.err, service, ms));
      return packet.response as T;
    } catch (err) {
      failure = toServiceError(err, service, ms);
      throw failure;
    } finally {
      endSpan(span, failure);
    }
  }

  private nc: NatsConnection | undefined;
  private closed = false;
  private async connectNats(): Promise<NatsConnection> {
    await this.proxy.connect();
    return this.proxy.unwrap<NatsConnection>();
  }

  private envelope(opts: RpcCallOptions, deadline?: number, traceparent = traceparentOf(currentContext()?.trace)): { meta: RequestMeta; headers: MsgHdrs } {
    const ctx = currentContext();
    const userId = opts.userId ?? ctx?.userId;
    const meta: RequestMeta = {
      correlationId: ctx?.correlationId ?? randomUUID(),
      ...(userId ? { userId } : {}),
      ...(opts.idempotencyKey !== undefined ? { idempotencyKey: opts.idempotencyKey } : {}),
      ...(deadline !== undefined ? { deadline } : {}),
    };
    const headers = natsHeaders();
    headers.set(CORRELATION_HEADER, meta.correlationId);
    if (traceparent) headers.set(TRACEPARENT, traceparent);
    return { meta, headers };
  }

  /** One request, a stream of replies (the handler returns an Observable). The timeout bounds each gap. */
  stream<T>(subject: string, data: unknown, opts: RpcCallOptions = {}): Observable<T> {
    const { meta, headers } = this.envelope(opts);
    const record = new NatsRecordBuilder({ meta, data }).setHeaders(headers).build();
    const ms = opts.timeoutMs ?? this.defaultTimeoutMs;
    const service = subject.split('.')[0] ?? subject;
    return this.proxy.send<T>(busSubject(this.busPrefix, subject), record).pipe(
      timeout({ each: ms }),
      catchError((err: unknown) => throwError(() => toServiceError(err, service, ms))),
    );
  }
}

/**
 * An error the service answered with. A handler commits its work last, so an error answer means this request
 * was not carried out, even when the cause was the service's own call to another service timing out
 * (`unknown` there is about that inner request).
 */
function answeredError(err: ServiceError): ServiceError {
  if (err.code !== ErrorCode.Unavailable || err.outcome === RequestOutcome.NotDone) return err;
  return new ServiceError(err.code, err.message, err.errors, { ...err.extra, outcome: RequestOutcome.NotDone });
}

function toServiceError(err: unknown, service: string, ms: number): ServiceError {
  if (err instanceof ServiceError) return err;
  const name = err instanceof Error ? err.name : '';
  if (err instanceof TimeoutError || name === 'TimeoutError' || (err instanceof Error && err.cause instanceof Error && err.cause.name === 'TimeoutError')) {
    // The request may be running, or may have committed just before the deadline with its reply still on the way.
    return ServiceError.unavailable(`The ${service} service did not answer within ${ms} ms.`, RequestOutcome.Unknown);
  }
  const fromRpc = ServiceError.fromRpc(err);
  if (fromRpc) return fromRpc;
  const text = err instanceof Error ? err.message : typeof err === 'object' && err && 'message' in err ? String(err.message) : String(err);
  // nats.js v3 reports a refused connection as `ConnectionError: connection refused`; Nest's client
  // fails pending requests with "Connection closed" when the connection goes away.
  if (name === 'NoRespondersError' || (err as { isNoResponders?: () => boolean }).isNoResponders?.() || /no subscribers|no responders|connection[ _]refused/i.test(text)) {
    // Nobody received the request.
    return ServiceError.unavailable(`The ${service} service is not available.`, RequestOutcome.NotDone);
  }
  if (name === 'ConnectionError' || /connection closed|closed connection|disconnect/i.test(text)) {
    // The connection went away, perhaps after the request was delivered.
    return ServiceError.unavailable(`The ${service} service is not available.`, RequestOutcome.Unknown);
  }
  return new ServiceError(ErrorCode.Internal, 'Internal error.');
}
