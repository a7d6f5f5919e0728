/**
 * The gateway's HTTP metrics: each answered request is counted and timed under its route pattern, never its
 * URL, so ids do not make a series each; a URL no route matches is one `unmatched` series.
 */
import { randomUUID } from 'node:crypto';
import { createLogger, startMetricsServer } from '@invest/platform';
import { metricValue } from '@invest/platform/testing/metric-value';
import { testNatsUrl, uniqueName } from '@invest/platform/testing/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayApp, type GatewayApp } from '../src/gateway.app.js';

let gw: GatewayApp;
let base: string;

beforeAll(async () => {
  gw = await createGatewayApp({ natsUrl: testNatsUrl(), busPrefix: `${uniqueName('gwmetrics')}.`, readyServices: [], logger: createLogger('gateway', 'silent') });
  base = await gw.listen(0, '127.0.0.1');
});

afterAll(async () => {
  await gw?.close();
});

describe('gateway HTTP metrics', () => {
  it('counts and times requests by method, route pattern and status', async () => {
    const route = { method: 'GET', route: '/api/portfolios/:id', status: '401' };
    const before = await metricValue('invest_http_requests_total', route);
    const timedBefore = await metricValue('invest_http_request_duration_seconds', route, '_count');
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/api/portfolios/${randomUUID()}`)).status).toBe(401);
    // Counted once the response has gone out (Fastify's onResponse), which may be just after the client has it.
    await expect.poll(() => metricValue('invest_http_requests_total', route)).toBe(before + 3);
    await expect.poll(() => metricValue('invest_http_request_duration_seconds', route, '_count')).toBe(timedBefore + 3);

    expect((await fetch(`${base}/health`)).status).toBe(200);
    await expect.poll(() => metricValue('invest_http_requests_total', { method: 'GET', route: '/health', status: '200' })).toBeGreaterThanOrEqual(1);

    const unmatched = await metricValue('invest_http_requests_total', { route: 'unmatched', status: '404' });
    expect((await fetch(`${base}/api/nothing-here/${randomUUID()}`)).status).toBe(404);
    await expect.poll(() => metricValue('invest_http_requests_total', { route: 'unmatched', status: '404' })).toBe(unmatched + 1);

    // What Prometheus scrapes: the route pattern, and no URL with an id as a label.
    const server = await startMetricsServer({ port: 0, service: 'gateway', logger: createLogger('gateway', 'silent') });
    try {
      const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
      expect(text).toMatch(/^invest_http_requests_total\{method="GET",route="\/api\/portfolios\/:id",status="401",service="gateway"\} \d+$/m);
      expect(text).not.toMatch(/route="[^"]*[0-9a-f]{8}-[0-9a-f]{4}/);
    } finally {
      await server.close();
    }
  });
});
