import { randomUUID } from 'node:crypto';
import { type ClientProxy, ClientProxyFactory, NatsRecordBuilder, Transport } from '@nestjs/microservices';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { CORRELATION_HEADER, ErrorCode, type RequestMeta } from '@invest/contracts';
import { firstValueFrom, type Observable, TimeoutError, catchError, throwError, timeout } from 'rxjs';
import { currentContext } from '../context/request-context.js';
import { ServiceError } from './service-error.js';

export interface RpcCallOptions {
  userId?: string;
  /** Overrides the client's default timeout. */
  timeoutMs?: number;
}

/**
 * Sends NATS requests to services: wraps the payload with `meta` (user, correlation id), sets the
 * correlation header, bounds the wait, and turns replies that are errors into ServiceError.
 */
export class RpcClient {
  constructor(
    private readonly proxy: ClientProxy,
    private readonly defaultTimeoutMs: number,
    /** Same `BUS_PREFIX` as the services' PrefixedNatsServer. */
    private readonly busPrefix = '',
  ) {}

  static create(opts: { natsUrl: string; name: string; defaultTimeoutMs: number; busPrefix?: string }): RpcClient {
    const proxy = ClientProxyFactory.create({ transport: Transport.NATS, options: { servers: opts.natsUrl, name: opts.name } });
    return new RpcClient(proxy, opts.defaultTimeoutMs, opts.busPrefix ?? '');
  }

  connect(): Promise<unknown> {
    return this.proxy.connect();
  }

  close(): Promise<unknown> | unknown {
    return this.proxy.close();
  }

  /** One request, one reply. */
  request<T>(subject: string, data: unknown, opts: RpcCallOptions = {}): Promise<T> {
    return firstValueFrom(this.stream<T>(subject, data, opts));
  }

  /** One request, a stream of replies (the handler returns an Observable). The timeout bounds each gap. */
  stream<T>(subject: string, data: unknown, opts: RpcCallOptions = {}): Observable<T> {
    const ctx = currentContext();
    const userId = opts.userId ?? ctx?.userId;
    const meta: RequestMeta = { correlationId: ctx?.correlationId ?? randomUUID(), ...(userId ? { userId } : {}) };
    const h = natsHeaders();
    h.set(CORRELATION_HEADER, meta.correlationId);
    const record = new NatsRecordBuilder({ meta, data }).setHeaders(h).build();
    const ms = opts.timeoutMs ?? this.defaultTimeoutMs;
    const service = subject.split('.')[0] ?? subject;
    return this.proxy.send<T>(this.busPrefix + subject, record).pipe(
      timeout({ each: ms }),
      catchError((err: unknown) => throwError(() => toServiceError(err, service, ms))),
    );
  }
}

function toServiceError(err: unknown, service: string, ms: number): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err instanceof TimeoutError) return ServiceError.unavailable(`The ${service} service did not answer within ${ms} ms.`);
  const fromRpc = ServiceError.fromRpc(err);
  if (fromRpc) return fromRpc;
  const text = err instanceof Error ? err.message : typeof err === 'object' && err && 'message' in err ? String(err.message) : String(err);
  // nats.js v3 reports a refused connection as `ConnectionError: connection refused`; Nest's client
  // fails pending requests with "Connection closed" when the connection goes away.
  const name = err instanceof Error ? err.name : '';
  if (name === 'ConnectionError' || /no subscribers|no responders|connection[ _]refused|connection closed|disconnect/i.test(text)) {
    return ServiceError.unavailable(`The ${service} service is not available.`);
  }
  return new ServiceError(ErrorCode.Internal, 'Internal error.');
}
