import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../testing/eventually.js';
import { type OtlpReceiver, startOtlpReceiver } from '../testing/otlp-receiver.js';
import { endSpan, SpanKind, startSpan, startTracing, traceparentOf } from './tracing.js';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver?.close());

describe('startTracing', () => {
  it('exports nothing when OTEL_EXPORTER_OTLP_ENDPOINT is unset, and passes a caller’s trace through unchanged', async () => {
    const tracing = startTracing('off-test', { env: {} });
    expect(tracing.enabled).toBe(false);
    const root = startSpan('off root', SpanKind.SERVER);
    expect(root.isRecording()).toBe(false);
    // No trace of its own: nothing to send in a traceparent header.
    expect(traceparentOf(root.spanContext())).toBeUndefined();
    endSpan(root);
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const continued = startSpan('off child', SpanKind.CONSUMER, incoming);
    expect(continued.isRecording()).toBe(false);
    expect(traceparentOf(continued.spanContext())).toBe(incoming);
    endSpan(continued);
    await tracing.flush();
    await tracing.shutdown();
    expect(receiver.requests).toBe(0);

    // The same spans with the endpoint set do reach the receiver (and only those started then).
    const on = startTracing('on-test', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/` } });
    expect(on.enabled).toBe(true);
    const parent = startSpan('on root', SpanKind.SERVER);
    const child = startSpan('on child', SpanKind.CLIENT, traceparentOf(parent.spanContext()));
    endSpan(child, new Error('refused'));
    endSpan(parent);
    const spans = await eventually(
      async () => {
        await on.flush();
        return receiver.spans;
      },
      (s) => s.length >= 2,
      'the spans exported',
    );
    await on.shutdown();
    expect(spans.map((s) => [s.service, s.name]).sort()).toEqual([
      ['on-test', 'on child'],
      ['on-test', 'on root'],
    ]);
    const [r, c] = [spans.find((s) => s.name === 'on root')!, spans.find((s) => s.name === 'on child')!];
    expect(c.traceId).toBe(r.traceId);
    expect(c.parentSpanId).toBe(r.spanId);
    expect(c.status).toMatchObject({ code: 2, message: 'refused' });
  });

  it('records the share OTEL_TRACES_SAMPLER_ARG says of new traces, and follows a caller’s decision', async () => {
    const tracing = startTracing('sampled-test', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER_ARG: '0' } });
    const root = startSpan('unsampled root', SpanKind.SERVER);
    expect(root.isRecording()).toBe(false);
    // Not sampled, yet the trace goes on (flag 00), so what follows is left out as well.
    expect(traceparentOf(root.spanContext())).toMatch(/-00$/);
    const sampledByCaller = startSpan('sampled by caller', SpanKind.SERVER, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    expect(sampledByCaller.isRecording()).toBe(true);
    endSpan(root);
    endSpan(sampledByCaller);
    await tracing.shutdown();
  });
});
