import { listSharesQuerySchema } from '@invest/contracts';
import type { FastifyInstance } from 'fastify';
import { parseQuery } from '../validation/request-input.js';
import type { MarketEventsInvalidator } from './market-events.invalidator.js';
import { bodyFor, type PublicPageCache } from './public-page.cache.js';
import { isAnonymous, sendPage } from './page-response.js';

/** Route of the public screener, whose hot pages the hook below answers. */
export const PUBLIC_SHARES_ROUTE = '/api/public/shares';

/**
 * Answers a public screener page that is in the cache straight from a Fastify `onRequest` hook, after the
 * gateway's own request hooks (request id, shutdown, charset) and before Nest's routing, pipes and filters,
 * which a hit does not need. Everything else (a miss, an invalid query, credentials, HEAD) goes on to
 * SharesController, which answers the same bytes. Install after the other `onRequest` hooks and before
 * `installRequestSpanHook`: a hit is counted in the HTTP metrics but records no span.
 */
export function installPublicPageHits(
  fastify: FastifyInstance,
  deps: { pages: PublicPageCache; invalidator: MarketEventsInvalidator; cacheControl: string; baseUrl?: string },
): void {
  if (deps.pages.config.ttlMs <= 0) return;
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'GET' || request.routeOptions.url !== PUBLIC_SHARES_ROUTE || !isAnonymous(request) || !deps.invalidator.live()) return done();
    let key;
    try {
      key = deps.pages.keyOf(request.url, () => parseQuery(listSharesQuerySchema, request.query));
    } catch {
      return done(); // the controller answers the 422
    }
    const page = deps.pages.peek(key);
    if (!page) return done();
    sendPage(request, reply, page, deps.cacheControl, () => bodyFor(page, request.url, deps.baseUrl));
  });
}
