/**
 * One trace across the stack (issue 36, item 2): the provider's Fail notification reaches the gateway, which asks
 * billing; billing records ChargeFailed, its relay publishes it, alerts' consumer records an account notice and
 * publishes NotificationFired, delivery's consumer receives it and its dispatcher sends the message. Every span
 * goes over OTLP/HTTP (JSON) to a local stand-in receiver; they share one trace id and each names the one before
 * as its parent. Real gateway, billing, alerts, delivery, Postgres and NATS.
 */
import { randomUUID } from 'node:crypto';
import { failNotificationFields, sendSignedNotification } from '@invest/billing/testing/fake-cloudpayments';
import { eventually } from '@invest/platform/testing/index';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '@invest/platform/testing/otlp-receiver';
import { startTracing, type Tracing } from '@invest/platform/tracing/tracing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CP_SECRET } from '../support/alerts-stack.js';
import { type DeliveryStack, RecordingSender, startDeliveryStack } from '../support/delivery-stack.js';

const recorder = new RecordingSender('telegram');
let receiver: OtlpReceiver;
let tracing: Tracing;
let stack: DeliveryStack;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // What main.ts does with OTEL_EXPORTER_OTLP_ENDPOINT set; every service of the stack runs in this process.
  tracing = startTracing('e2e', { env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, scheduledDelayMs: 100 });
  stack = await startDeliveryStack('traces', { tickers: ['SBER'], delivery: { senders: [recorder], groupWindowMs: 200 } });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await tracing?.shutdown();
  await receiver?.close();
});

/** The span and its ancestors, nearest first, as far as the received spans go. */
function ancestry(spans: readonly ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const chain = [span];
  for (let s = span; s.parentSpanId; ) {
    const parent = spans.find((p) => p.spanId === s.parentSpanId && p.traceId === s.traceId);
    if (!parent) break;
    chain.push(parent);
    s = parent;
  }
  return chain;
}

describe('tracing', () => {
  it('runs one trace from the gateway request through billing, the event, alerts and delivery to the send', async () => {
    const u = `tr-${randomUUID().slice(0, 8)}`;
    const address = recorder.link(u);
    await stack.subscribePaid(u);
    const payment = stack.provider.addPayment({ AccountId: u, Amount: 299, Currency: 'RUB', SubscriptionId: `sc_${randomUUID().replaceAll('-', '').slice(0, 24)}`, Status: 'Declined' });
    const fail = await sendSignedNotification(new URL('/api/provider/fail', stack.base).toString(), failNotificationFields(payment), CP_SECRET);
    expect(fail.status).toBe(200);
    await eventually(() => Promise.resolve(recorder.sentTo(address)), (m) => m.length === 1, 'the message sent');

    const spans = await eventually(
      async () => {
        await tracing.flush();
        return receiver.spans;
      },
      (s) => s.some((x) => x.name === 'send telegram' && x.attributes?.some((a) => a.key === 'delivery.outcome' && a.value.stringValue === 'sent')),
      'the send span exported',
    );
    const send = spans.find((x) => x.name === 'send telegram')!;
    const chain = ancestry(spans, send).reverse();
    // Root first: name and OTLP kind (2 server, 3 client, 4 producer, 5 consumer) of each link.
    expect(chain.map((s) => [s.name, s.kind])).toEqual([
      ['POST /api/provider/fail', 2],
      [expect.stringMatching(/^rpc billing\./), 3],
      [expect.stringMatching(/^rpc billing\./), 2],
      ['publish ChargeFailed', 4],
      ['consume alerts__billing-events', 5],
      ['publish NotificationFired', 4],
      ['consume delivery__notification-fired', 5],
      ['send telegram', 3],
    ]);
    expect(chain[0]!.parentSpanId || undefined).toBeUndefined();
    expect(new Set(chain.map((s) => s.traceId)).size).toBe(1);
    expect(chain[1]!.name).toBe(chain[2]!.name);
    // The trace is the request's alone: every span of it descends from the gateway request.
    const trace = spans.filter((s) => s.traceId === chain[0]!.traceId);
    for (const s of trace) expect(ancestry(spans, s).at(-1)!.spanId).toBe(chain[0]!.spanId);
    // The correlation id is untouched: the request's id still reaches the event billing recorded.
    const [event] = await stack.billing.db.query<{ metadata: Record<string, unknown> }>("select metadata from es_events where type = 'ChargeFailed' order by global_position desc limit 1");
    expect(event!.metadata).toMatchObject({ correlationId: expect.any(String), traceparent: expect.stringMatching(new RegExp(`^00-${chain[0]!.traceId}-${chain[2]!.spanId}-01$`)) });
  });
});
