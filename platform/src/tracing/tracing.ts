import { type Attributes, type Link, ROOT_CONTEXT, type Span, type SpanContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';

export { SpanKind, type Span, type SpanContext };

/** The W3C Trace Context header, in NATS headers and in an event's metadata. */
export const TRACEPARENT = 'traceparent';

export interface Tracing {
  /** Whether spans are exported (an OTLP endpoint was given). */
  readonly enabled: boolean;
  /** Exports the spans ended so far. */
  flush(): Promise<void>;
  /** Exports what is left and stops; the global tracer is a no-op again. */
  shutdown(): Promise<void>;
}

const TRACER_NAME = '@invest/platform';
// The API's no-op tracer until startTracing registers a provider (a proxy would keep a stopped provider's tracer).
let tracer = trace.getTracer(TRACER_NAME);
const propagator = new W3CTraceContextPropagator();
const setter = { set: (carrier: Record<string, string>, key: string, value: string) => void (carrier[key] = value) };
const getter = {
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
  get: (carrier: Record<string, string>, key: string) => carrier[key],
};

const off: Tracing = { enabled: false, flush: () => Promise.resolve(), shutdown: () => Promise.resolve() };

/**
 * Starts exporting this process's spans over OTLP/HTTP (JSON) to `<endpoint>/v1/traces` when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `opts.endpoint`) is set. Unset, nothing is registered: the API's no-op tracer
 * answers every span, and nothing is sent anywhere. One provider per process; services call it first in main.ts.
 * `OTEL_TRACES_SAMPLER_ARG` (0 to 1, default 1) is the share of new traces recorded; a trace that came with a
 * `traceparent` follows its caller's decision (parent-based), so a trace is kept whole or not at all.
 */
export function startTracing(serviceName: string, opts: { endpoint?: string; env?: NodeJS.ProcessEnv; scheduledDelayMs?: number } = {}): Tracing {
  const env = opts.env ?? process.env;
  const endpoint = (opts.endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT)?.trim();
  if (!endpoint) return off;
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1) }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: opts.scheduledDelayMs ?? 1000 })],
  });
  trace.setGlobalTracerProvider(provider);
  tracer = provider.getTracer(TRACER_NAME);
  return {
    enabled: true,
    flush: () => provider.forceFlush(),
    async shutdown() {
      tracer = trace.getTracer(TRACER_NAME);
      await provider.shutdown();
      trace.disable();
    },
  };
}

/** A span context from a `traceparent` value (a header, an event's metadata), or undefined when absent or invalid. */
export function spanContextFrom(traceparent: unknown): SpanContext | undefined {
  if (typeof traceparent !== 'string' || traceparent === '') return undefined;
  const sc = trace.getSpanContext(propagator.extract(ROOT_CONTEXT, { [TRACEPARENT]: traceparent }, getter));
  return sc && trace.isSpanContextValid(sc) ? sc : undefined;
}

/** The `traceparent` of a span context, or undefined when there is none (tracing off and no incoming trace). */
export function traceparentOf(sc: SpanContext | undefined): string | undefined {
  if (!sc || !trace.isSpanContextValid(sc)) return undefined;
  const carrier: Record<string, string> = {};
  propagator.inject(trace.setSpanContext(ROOT_CONTEXT, sc), carrier, setter);
  return carrier[TRACEPARENT];
}

/**
 * Starts a span, child of `parent` (a span context or a `traceparent`), else a new trace's root. The caller puts
 * `span.spanContext()` in the request context (`runWithContext({ ..., trace })`) so what it calls is its child.
 */
export function startSpan(name: string, kind: SpanKind, parent?: SpanContext | string, attributes?: Attributes, links?: Link[]): Span {
  const sc = typeof parent === 'string' ? spanContextFrom(parent) : parent;
  return tracer.startSpan(name, { kind, ...(attributes ? { attributes } : {}), ...(links?.length ? { links } : {}) }, sc ? trace.setSpanContext(ROOT_CONTEXT, sc) : ROOT_CONTEXT);
}

/** Ends a span, marked failed with `err` when given. */
export function endSpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end();
}

/** Links to the span contexts of `traceparents` (the other events of a batch span), the invalid ones left out. */
export function linksTo(traceparents: readonly unknown[]): Link[] {
  return traceparents.flatMap((t) => {
    const context = spanContextFrom(t);
    return context ? [{ context }] : [];
  });
}

/** Runs `fn` and ends `span` with its outcome: failed when it throws, or when `failed` says so of its result. */
export async function inSpan<T>(span: Span, fn: () => Promise<T>, failed?: (result: T) => string | undefined): Promise<T> {
  let result: T;
  try {
    result = await fn();
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
  const failure = failed?.(result);
  endSpan(span, failure);
  return result;
}
