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

interface Entry<V> {
  value: V;
  expires: number;
  bytes: number;
}

/**
 * A small read-through cache for hot queries. Concurrent reads of the same key share one load
 * (single flight), so a burst of identical requests costs one query whose result is at most one
 * query-duration old. With `ttlMs > 0` a result is also reused for that long, within `maxEntries` and
 * `maxBytes` (least recently used first out). `clear()` after a write makes the next read load afresh; a
 * load already in flight when clear() is called is not reused.
 */
export class CoalescingCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly inflight = new Map<string, { generation: number; promise: Promise<V> }>();
  private generation = 0;
  private totalBytes = 0;

  constructor(private readonly opts: CoalescingCacheOptions<V>) {}

  /** Entries held now (expired ones included until they are read or pushed out). */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes held now, as measured by `sizeOf` (0 without it). */
  get bytes(): number {
    return this.totalBytes;
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
        if (this.opts.ttlMs > 0 && generation === this.generation) this.store(key, value, (this.opts.now ?? Date.now)() + this.opts.ttlMs);
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
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expires <= (this.opts.now ?? Date.now)()) {
      this.remove(key, hit);
      return undefined;
    }
    // Maps iterate in insertion order: re-inserting keeps the least recently used first.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  /** Forgets every cached value and stops sharing loads that started before now. */
  clear(): void {
    this.generation++;
    this.entries.clear();
    this.totalBytes = 0;
  }

  private remove(key: string, entry: Entry<V>) {
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
  }

  private store(key: string, value: V, expires: number) {
    const maxEntries = this.opts.maxEntries ?? 1000;
    const maxBytes = this.opts.maxBytes ?? Infinity;
    const bytes = this.opts.sizeOf?.(value) ?? 0;
    const previous = this.entries.get(key);
    if (previous) this.remove(key, previous);
    if (bytes > maxBytes || maxEntries < 1) return;
    for (const [oldKey, old] of this.entries) {
      if (this.entries.size < maxEntries && this.totalBytes + bytes <= maxBytes) break;
      this.remove(oldKey, old);
    }
    this.entries.set(key, { value, expires, bytes });
    this.totalBytes += bytes;
  }
}
