/**
 * What the gateway answers from its own memory is counted, not traced (docs/decisions/0043): a public screener
 * page served from the gateway's page cache records no span but is counted in the HTTP metrics under its route,
 * while a request that goes on to the screener is still a server span with its RPC as child. Each request
 * carries a `traceparent` of its own, so its spans (or their absence) are told apart. Real gateway, screener,
 * Postgres and NATS; spans over OTLP/HTTP to a local stand-in receiver.
 */
import { randomBytes } from 'node:crypto';
import { eventually } from '@invest/platform/testing/index';
import { metricValue } from '@invest/platform/testing/metric-value';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '@invest/platform/testing/otlp-receiver';
import { startTracing, type Tracing } from '@invest/platform/tracing/tracing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScreenerStack, startScreenerStack } from '../support/screener-stack.js';

const PAGE = '/api/public/shares';
const COUNTED = { method: 'GET', route: PAGE, status: '200' };

let receiver: OtlpReceiver;
let tracing: Tracing;
let stack: ScreenerStack;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  tracing = startTracing('e2e', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, scheduledDelayMs: 100 });
  stack = await startScreenerStack('trhits', { jwtSecret: 'tracing-hits-e2e-secret-0123456789-0123456789' });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await tracing?.shutdown();
  await receiver?.close();
});

/** A new trace's id, and the `traceparent` of a sampled caller span in it. */
function callerTrace(): { traceId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
}

async function get(traceparent: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(new URL(PAGE, stack.base), { headers: { traceparent, ...headers } });
  await res.arrayBuffer();
  expect(res.status).toBe(200);
}

/** The spans of a trace once its gateway server span and its RPC client span have been exported. */
async function tracedRequest(traceId: string): Promise<ReceivedSpan[]> {
  return eventually(
    async () => {
      await tracing.flush();
      return receiver.spans.filter((s) => s.traceId === traceId);
    },
    (spans) => spans.some((s) => s.kind === 2 && s.name === `GET ${PAGE}`) && spans.some((s) => s.kind === 3 && s.name.startsWith('rpc ')),
    `the spans of trace ${traceId}`,
  );
}

describe('gateway page cache hits and tracing', () => {
  it('counts a cache hit without a span, and still traces a request that reaches the screener', async () => {
    const before = await metricValue('invest_http_requests_total', COUNTED);
    const timedBefore = await metricValue('invest_http_request_duration_seconds', COUNTED, '_count');
    const miss = callerTrace();
    const hit = callerTrace();
    const withCookie = callerTrace();

    await get(miss.traceparent); // fills the gateway's cache
    await get(hit.traceparent); // answered from it
    await get(withCookie.traceparent, { cookie: 'session=x' }); // never from the cache

    for (const traced of [miss, withCookie]) {
      const spans = await tracedRequest(traced.traceId);
      const server = spans.find((s) => s.kind === 2 && s.name === `GET ${PAGE}`)!;
      expect(spans.find((s) => s.kind === 3 && s.name.startsWith('rpc '))!.parentSpanId).toBe(server.spanId);
    }
    // The hit's response was complete before the last request began, and that one's spans are in: so would be the hit's.
    expect(receiver.spans.filter((s) => s.traceId === hit.traceId)).toEqual([]);
    await expect.poll(() => metricValue('invest_http_requests_total', COUNTED)).toBe(before + 3);
    await expect.poll(() => metricValue('invest_http_request_duration_seconds', COUNTED, '_count')).toBe(timedBefore + 3);
  });
});
