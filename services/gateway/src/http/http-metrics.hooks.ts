import { httpMetrics } from '@invest/platform';
import type { FastifyInstance } from 'fastify';

/** The route label of a request no route matched: one series, whatever URLs are tried. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts every answered request and observes its latency, by method, route pattern (`/api/portfolios/:id`,
 * never the URL: ids would make a series each) and status.
 */
export function installHttpMetrics(fastify: FastifyInstance): void {
  const metrics = httpMetrics();
  fastify.addHook('onResponse', (request, reply, done) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status: String(reply.statusCode) };
    metrics.requests.inc(labels);
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
