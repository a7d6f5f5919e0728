import { createHash } from 'node:crypto';
import type { ListSharesQuery, ListSharesReply } from '@invest/contracts';
import { CoalescingCache } from '@invest/platform';
import type { PublicScreenerCacheConfig } from '../config/gateway.config.js';
import type { PageLinks } from '../paging/page-links.js';

/**
 * A screener page serialized once: the JSON of `{data, meta}` without its closing brace, and its entity tag.
 * The links depend on the request URL (its parameter order is kept), so they are appended per request.
 */
export interface SerializedPage {
  /** `{"data":[…],"meta":{…}` in UTF-8: encoded once, copied into each body. */
  head: Buffer;
  /** Strong entity tag of the page: a hash of `head` (and the links' base URL). */
  etag: string;
  /** Bytes of `head`, what the cache's byte bound counts. */
  bytes: number;
  /** The page's `meta`, which the links are built from. */
  meta: ListSharesReply['meta'];
}

/**
 * Serializes a service page. The links are a function of the request URL, `meta` and the base URL, so within
 * one URL (what a client's or shared cache keys on) the hash of `head` identifies the whole body.
 */
export function serializePage(page: ListSharesReply, baseUrl = ''): SerializedPage {
  const json = JSON.stringify({ data: page.data, meta: page.meta });
  const head = Buffer.from(json.slice(0, -1));
  const hash = createHash('sha256').update(baseUrl).update('\n').update(head).digest('base64url').slice(0, 27);
  return { head, etag: `"${hash}"`, bytes: head.length, meta: page.meta };
}

/** The response body: exactly the UTF-8 of `JSON.stringify({data, meta, links})`. */
export function pageBody(page: SerializedPage, links: PageLinks): Buffer {
  return Buffer.concat([page.head, Buffer.from(`,"links":${JSON.stringify(links)}}`)]);
}

/**
 * The cache key of a parsed query: every field in a fixed order, defaults applied by the schema, so
 * `?sort=market_cap&page=1` and `?page=1`, or parameters in another order, share one entry.
 */
export function publicPageKey(query: ListSharesQuery): string {
  return JSON.stringify([query.page, query.per_page, query.sort, query.direction, query.category ?? null, query.country_code ?? null, query.search ?? null]);
}

/**
 * The gateway's short in-memory cache of public screener pages, serialized: hot pages are answered without a
 * NATS round trip. Concurrent misses of one key share one request (single flight); entries live `ttlMs` at
 * most, within `maxEntries` and `maxBytes` (least recently used out first); `invalidate()` when rates change.
 */
export class PublicPageCache {
  private readonly cache: CoalescingCache<SerializedPage>;

  constructor(
    readonly config: PublicScreenerCacheConfig,
    now?: () => number,
  ) {
    this.cache = new CoalescingCache<SerializedPage>({
      ttlMs: config.ttlMs,
      maxEntries: config.maxEntries,
      maxBytes: config.maxBytes,
      sizeOf: (page) => page.bytes,
      ...(now ? { now } : {}),
    });
  }

  /** The page of a query: from memory while fresh, else from `load` (shared by concurrent callers). */
  get(query: ListSharesQuery, load: () => Promise<SerializedPage>): Promise<SerializedPage> {
    return this.cache.get(publicPageKey(query), load);
  }

  /** The page of a query if it is in memory and fresh; never loads. */
  peek(query: ListSharesQuery): SerializedPage | undefined {
    return this.cache.peek(publicPageKey(query));
  }

  /** Forgets every page, and every load already in flight (its answer may predate the change). */
  invalidate(): void {
    this.cache.clear();
  }

  get size(): number {
    return this.cache.size;
  }

  get bytes(): number {
    return this.cache.bytes;
  }
}
