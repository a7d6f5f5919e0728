import { runWithContext, type Logger, type RequestContext } from '@invest/platform';
import { endSpan, type Span, SpanKind, startSpan, TRACEPARENT } from '@invest/platform/tracing/tracing';
import type { FastifyInstance } from 'fastify';
import { correlationIdFrom, REQUEST_ID_HEADER } from './correlation-id.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request context (correlation id, user id once authenticated) of this request. */
    ctx: RequestContext;
    /** The request's server span (tracing; a no-op span when tracing is off); null for a request answered before it starts. */
    span: Span | null;
  }
}

/**
 * Fastify hooks that give every request its correlation id (taken from a valid `X-Request-Id` or
 * created), echo it in the response, run the request inside the platform request context (so logs
 * and outgoing NATS requests carry it) and write one access-log line when the response is sent; the
 * response also ends the request's server span when `installRequestSpanHook` started one.
 * Plain hooks instead of Nest interceptors: a few microseconds per request.
 */
export function installRequestContextHooks(fastify: FastifyInstance, logger: Logger): void {
  fastify.decorateRequest('ctx', null as unknown as RequestContext);
  fastify.decorateRequest('span', null);

  fastify.addHook('onRequest', (request, reply, done) => {
    const ctx: RequestContext = { correlationId: correlationIdFrom(request.headers[REQUEST_ID_HEADER]) };
    request.ctx = ctx;
    reply.header(REQUEST_ID_HEADER, ctx.correlationId);
    runWithContext(ctx, done);
  });

  // Body parsing resumes on stream events, outside the context entered above: enter it again so
  // guards and handlers (which Fastify calls synchronously from here) run inside it.
  fastify.addHook('preHandler', (request, _reply, done) => {
    runWithContext(request.ctx, done);
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (request.ctx) runWithContext(request.ctx, () => logger.debug(line, 'request'));
    else logger.debug(line, 'request');
    if (request.span) {
      const route = request.routeOptions.url;
      if (route) request.span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
      request.span.setAttribute('http.response.status_code', reply.statusCode);
      endSpan(request.span, reply.statusCode >= 500 ? `HTTP ${reply.statusCode}` : undefined);
    }
    done();
  });
}

/**
 * Starts the request's server span (continuing a caller's `traceparent`, else a new trace) and makes it the
 * parent of what the request calls. Installed after the `onRequest` hooks that may answer on their own (the
 * public page cache's hits): a request answered from the gateway's memory records no span, only its HTTP
 * metrics (docs/decisions/0043-no-span-for-gateway-memory-answers.md). Needs `installRequestContextHooks` first.
 */
export function installRequestSpanHook(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const incoming = request.headers[TRACEPARENT];
    request.span = startSpan(`HTTP ${request.method}`, SpanKind.SERVER, typeof incoming === 'string' ? incoming : undefined, { 'http.request.method': request.method });
    // The context entered by the first hook is this object: what runs from here on sees the span.
    request.ctx.trace = request.span.spanContext();
    done();
  });
}
