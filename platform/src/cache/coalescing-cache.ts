/**
 * A small read-through cache for hot queries. Concurrent reads of the same key share one load
 * (single flight), so a burst of identical requests costs one query whose result is at most one
 * query-duration old. With `ttlMs > 0` a result is also reused for that long. `clear()` after a write
 * makes the next read load afresh; a load already in flight when clear() is called is not reused.
 */
export class CoalescingCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  private readonly inflight = new Map<string, { generation: number; promise: Promise<V> }>();
  private generation = 0;

  constructor(private readonly opts: { ttlMs: number; maxEntries?: number; now?: () => number }) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    const now = (this.opts.now ?? Date.now)();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return Promise.resolve(hit.value);
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

  /** Forgets every cached value and stops sharing loads that started before now. */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  private store(key: string, value: V, expires: number) {
    const max = this.opts.maxEntries ?? 1000;
    if (this.entries.size >= max && !this.entries.has(key)) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(key);
    this.entries.set(key, { value, expires });
  }
}
