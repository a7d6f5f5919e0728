import type { FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchMatches } from '../http/conditional-get.js';
import type { SerializedPage } from './public-page.cache.js';

/** `Cache-Control` of the public page: anyone may keep it as long as the gateway would (docs/decisions/0016-screener-page-caches.md). */
export const publicCacheControl = (ttlMs: number): string => (ttlMs >= 1000 ? `public, max-age=${Math.floor(ttlMs / 1000)}` : 'public, no-cache');

/** Whether a request carries no credentials: only such requests share the gateway's public pages. */
export const isAnonymous = (request: FastifyRequest): boolean => request.headers.authorization === undefined && request.headers.cookie === undefined;

/**
 * Answers a screener page: its `ETag` and `Cache-Control`, then 304 with no body when `If-None-Match` matches
 * (RFC 9110 §15.4.5: the same validators and caching fields as the 200), else the JSON body `body()` gives
 * (bodyFor or pageBody: with the links of this request's URL).
 */
export function sendPage(request: FastifyRequest, reply: FastifyReply, page: SerializedPage, cacheControl: string, body: () => Buffer): void {
  reply.header('etag', page.etag).header('cache-control', cacheControl);
  if (ifNoneMatchMatches(request.headers['if-none-match'], page.etag)) {
    void reply.code(304).send();
    return;
  }
  void reply.header('content-type', 'application/json; charset=utf-8').send(body());
}
