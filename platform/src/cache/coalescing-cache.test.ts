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

  it('keeps the most recently read entries past maxEntries', async () => {
    const cache = new CoalescingCache<number>({ ttlMs: 10_000, maxEntries: 2 });
    await cache.get('a', async () => 1);
    await cache.get('b', async () => 2);
    expect(await cache.get('a', async () => 100)).toBe(1); // a is now the most recently used
    await cache.get('c', async () => 3); // pushes out b, not a
    expect(cache.size).toBe(2);
    expect(cache.peek('a')).toBe(1);
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('c')).toBe(3);
  });

  it('stays within maxBytes, least recently used out first, and keeps no value larger than the bound', async () => {
    const cache = new CoalescingCache<string>({ ttlMs: 10_000, maxBytes: 10, sizeOf: (v) => v.length });
    await cache.get('a', async () => 'aaaa');
    await cache.get('b', async () => 'bbbb');
    expect(cache.bytes).toBe(8);
    cache.peek('a');
    await cache.get('c', async () => 'cccc'); // 12 bytes would not fit: b (least recently used) goes
    expect(cache.bytes).toBe(8);
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('a')).toBe('aaaa');
    expect(await cache.get('huge', async () => 'x'.repeat(11))).toBe('x'.repeat(11));
    expect(cache.peek('huge')).toBeUndefined();
    expect(cache.size).toBe(2);
    // A hit does not count its bytes again.
    cache.clear();
    await cache.get('a', async () => 'aa');
    await cache.get('a', async () => 'aaa');
    expect(cache.bytes).toBe(2);
  });

  it('drops an expired entry and its bytes when it is read', async () => {
    let now = 0;
    const cache = new CoalescingCache<string>({ ttlMs: 100, maxBytes: 100, sizeOf: (v) => v.length, now: () => now });
    await cache.get('k', async () => 'value');
    expect(cache.bytes).toBe(5);
    now = 100;
    expect(cache.peek('k')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.bytes).toBe(0);
    cache.clear();
    expect(cache.bytes).toBe(0);
  });
});
