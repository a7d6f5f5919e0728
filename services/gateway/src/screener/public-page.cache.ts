import { createHash } from 'node:crypto';
import type { ListSharesQuery, ListSharesReply } from '@invest/contracts';
import { CoalescingCache } from '@invest/platform/cache/coalescing-cache';
import type { PublicScreenerCacheConfig } from '../config/gateway.config.js';
import { type PageLinks, pageLinks } from '../paging/page-links.js';

/** Longest request URL a cached page keeps a whole body for, or the cache remembers the key of. */
export const READY_URL_MAX = 512;
/** Most bytes of links a kept body may have beyond the page JSON (what each page reserves for it). */
const READY_LINKS_MAX = 8192;

/**
 * A screener page serialized once: the JSON of `{data, meta}` without its closing brace, and its entity tag.
 * The links depend on the request URL (its parameter order is kept), so they are appended per request; the
 * whole body of the first URL that asks is kept (`ready`), the URL nearly every request of a hot page uses.
 */
export interface SerializedPage {
  /** `{"data":[…],"meta":{…}` in UTF-8: encoded once, copied into each body. */
  head: Buffer;
  /** Strong entity tag of the page: a hash of `head` (and the links' base URL). */
  etag: string;
  /** What the cache's byte bound counts: `head`, and room for one ready body (`head` and its links). */
  bytes: number;
  /** The page's `meta`, which the links are built from. */
  meta: ListSharesReply['meta'];
  /** The whole body for one request URL, built once. */
  ready?: { url: string; body: Buffer };
}

/**
 * Serializes a service page. The links are a function of the request URL, `meta` and the base URL, so within
 * one URL (what a client's or shared cache keys on) the hash of `head` identifies the whole body.
 */
export function serializePage(page: ListSharesReply, baseUrl = ''): SerializedPage {
  const json = JSON.stringify({ data: page.data, meta: page.meta });
  const head = Buffer.from(json.slice(0, -1));
  const hash = createHash('sha256').update(baseUrl).update('\n').update(head).digest('base64url').slice(0, 27);
  return { head, etag: `"${hash}"`, bytes: 2 * head.length + READY_LINKS_MAX, meta: page.meta };
}

/** The response body: exactly the UTF-8 of `JSON.stringify({data, meta, links})`. */
export function pageBody(page: SerializedPage, links: PageLinks): Buffer {
  return Buffer.concat([page.head, Buffer.from(`,"links":${JSON.stringify(links)}}`)]);
}

/**
 * The body of a page for a request URL (path and query as received): the kept one when it was built for this
 * URL, else built, and kept when the page has none yet and the URL is short enough.
 */
export function bodyFor(page: SerializedPage, url: string, baseUrl = ''): Buffer {
  if (page.ready?.url === url) return page.ready.body;
  const body = pageBody(page, pageLinks(url, page.meta, baseUrl));
  if (!page.ready && url.length <= READY_URL_MAX && body.length - page.head.length <= READY_LINKS_MAX) page.ready = { url, body };
  return body;
}

/**
 * The cache key of a parsed query: every field in a fixed order, defaults applied by the schema, so
 * `?sort=market_cap&page=1` and `?page=1`, or parameters in another order, share one entry.
 */
export function publicPageKey(query: ListSharesQuery): string {
  return JSON.stringify([
    query.page,
    query.per_page,
    query.sort,
    query.direction,
    query.category ?? null,
    query.country_code ?? null,
    query.search ?? null,
    query.dividend_yield_min ?? null,
    query.dividend_yield_max ?? null,
    query.market_cap_min ?? null,
    query.market_cap_max ?? null,
  ]);
}

/**
 * The gateway's short in-memory cache of public screener pages, serialized: hot pages are answered without a
 * NATS round trip. Concurrent misses of one key share one request (single flight); entries live `ttlMs` at
 * most, within `maxEntries` and `maxBytes` (least recently used out first); `invalidate()` when rates change.
 */
export class PublicPageCache {
  private readonly cache: CoalescingCache<SerializedPage>;
  /** Request URL → key: parsing is pure, so a URL once parsed need not be parsed again (at most maxEntries URLs). */
  private readonly keys = new Map<string, string>();

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

  /**
   * The key of a request URL (path and query as received), from `parse` (which throws on an invalid query) the
   * first time; remembered for URLs up to READY_URL_MAX characters.
   */
  keyOf(url: string, parse: () => ListSharesQuery): string {
    let key = this.keys.get(url);
    if (key !== undefined) return key;
    key = publicPageKey(parse());
    if (url.length <= READY_URL_MAX) {
      if (this.keys.size >= this.config.maxEntries) this.keys.delete(this.keys.keys().next().value!);
      this.keys.set(url, key);
    }
    return key;
  }

  /** The page of a key: from memory while fresh, else from `load` (shared by concurrent callers). */
  get(key: string, load: () => Promise<SerializedPage>): Promise<SerializedPage> {
    return this.cache.get(key, load);
  }

  /** The page of a key if it is in memory and fresh; never loads. */
  peek(key: string): SerializedPage | undefined {
    return this.cache.peek(key);
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
