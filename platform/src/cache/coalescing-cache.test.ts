import { describe, expect, it } from 'vitest';
import { CoalescingCache } from './coalescing-cache.js';

const deferred = <T>() => {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
};

describe('CoalescingCache', () => {
  it('shares one load between concurrent reads of a key, not between keys', async () => {
    const cache = new CoalescingCache<string>({ ttlMs: 0 });
    let loads = 0;
    const d = deferred<string>();
    const load = () => (loads++, d.promise);
    const reads = [cache.get('a', load), cache.get('a', load), cache.get('a', load)];
    const other = cache.get('b', async () => 'b');
    d.resolve('A');
    expect(await Promise.all(reads)).toEqual(['A', 'A', 'A']);
    expect(await other).toBe('b');
    expect(loads).toBe(1);
  });

  it('with ttl 0 loads again once the shared load has finished', async () => {
    const cache = new CoalescingCache<number>({ ttlMs: 0 });
    let n = 0;
    expect(await cache.get('k', async () => ++n)).toBe(1);
    expect(await cache.get('k', async () => ++n)).toBe(2);
  });

  it('reuses a value for ttl and loads again after it expires', async () => {
    let now = 1000;
    const cache = new CoalescingCache<number>({ ttlMs: 500, now: () => now });
    let n = 0;
    expect(await cache.get('k', async () => ++n)).toBe(1);
    now += 499;
    expect(await cache.get('k', async () => ++n)).toBe(1);
    now += 2;
    expect(await cache.get('k', async () => ++n)).toBe(2);
  });

  it('after clear() neither reuses cached values nor joins loads started before the write', async () => {
    const cache = new CoalescingCache<string>({ ttlMs: 10_000 });
    expect(await cache.get('k', async () => 'old')).toBe('old');
    const slow = deferred<string>();
    const before = cache.get('j', () => slow.promise);
    cache.clear();
    expect(await cache.get('k', async () => 'new')).toBe('new');
    const after = cache.get('j', async () => 'fresh');
    slow.resolve('stale');
    expect(await before).toBe('stale');
    expect(await after).toBe('fresh');
    // The stale load finished after clear(): it must not have been cached.
    expect(await cache.get('j', async () => 'reloaded')).toBe('fresh');
  });

  it('does not cache failures and evicts the oldest entry past maxEntries', async () => {
    const cache = new CoalescingCache<number>({ ttlMs: 10_000, maxEntries: 2 });
    await expect(cache.get('x', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('x', async () => 1)).toBe(1);
    await cache.get('y', async () => 2);
    await cache.get('z', async () => 3);
    expect(await cache.get('x', async () => 10)).toBe(10);
    expect(await cache.get('z', async () => 30)).toBe(3);
  });
});
