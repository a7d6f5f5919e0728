import { LRUCache } from 'lru-cache';

/** Options of a CoalescingCache. */
export interface CoalescingCacheOptions<V> {
  /** How long a loaded value is reused; 0 keeps nothing beyond sharing loads in flight. */
  ttlMs: number;
  /** Most entries kept (default 1000); past it the least recently used goes. */
  maxEntries?: number;
  /** Most bytes kept, as measured by `sizeOf` (default: unbounded); a single value larger than this is not kept. */
  maxBytes?: number;
  /** Size of a value in bytes, for `maxBytes`. */
  sizeOf?: (value: V) => number;
  now?: () => number;
}

/**
 * A small read-through cache for hot queries: lru-cache keeps the values (entry and byte bounds, least recently
 * used out first); this adds the single flight and the expiry (an entry is stale from `ttlMs` after it was
 * stored, on the given clock: lru-cache's own TTL is stale only after it, and never for a clock reading 0). Concurrent reads of the same key share one load, so
 * a burst of identical requests costs one query whose result is at most one query-duration old. `clear()`
 * after a write makes the next read load afresh, and a load already in flight then is neither joined nor
 * stored. (lru-cache's own `fetch()` coalesces too, but rejects the readers of a load that `clear()` aborts.)
 */
export class CoalescingCache<V extends NonNullable<unknown>> {
  private readonly values: LRUCache<string, { value: V; expires: number }> | undefined;
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly inflight = new Map<string, { generation: number; promise: Promise<V> }>();
  private generation = 0;

  constructor(opts: CoalescingCacheOptions<V>) {
    this.now = opts.now ?? Date.now;
    this.ttlMs = opts.ttlMs;
    const max = opts.maxEntries ?? 1000;
    if (opts.ttlMs <= 0 || max < 1) return;
    const sizeOf = opts.sizeOf;
    this.values = new LRUCache<string, { value: V; expires: number }>({
      max,
      ...(opts.maxBytes !== undefined && sizeOf ? { maxSize: opts.maxBytes, sizeCalculation: (e) => Math.max(1, sizeOf(e.value)) } : {}),
    });
  }

  /** Entries held now (expired ones included until they are read or pushed out). */
  get size(): number {
    return this.values?.size ?? 0;
  }

  /** Bytes held now, as measured by `sizeOf` (0 without it). */
  get bytes(): number {
    return this.values?.calculatedSize ?? 0;
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const pending = this.inflight.get(key);
    if (pending && pending.generation === this.generation) return pending.promise;

    const generation = this.generation;
    const promise = load().then(
      (value) => {
        if (this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
        if (generation === this.generation) this.values?.set(key, { value, expires: this.now() + this.ttlMs });
        return value;
      },
      (err: unknown) => {
        if (this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
        throw err;
      },
    );
    this.inflight.set(key, { generation, promise });
    return promise;
  }

  /** The cached value of a key if it is still fresh (marking it recently used), without loading. */
  peek(key: string): V | undefined {
    const hit = this.values?.get(key);
    if (!hit) return undefined;
    if (hit.expires > this.now()) return hit.value;
    this.values!.delete(key);
    return undefined;
  }

  /** Forgets every cached value and stops sharing loads that started before now. */
  clear(): void {
    this.generation++;
    this.values?.clear();
  }
}
