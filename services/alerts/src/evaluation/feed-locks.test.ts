import { describe, expect, it } from 'vitest';
import { chunkByFeed, FEED_BUCKETS, feedBucketOf } from './feed-locks.js';

const firing = (id: number, userId: string) => ({ id, n: { userId } });

describe('feed buckets', () => {
  it('spreads users over every bucket, about evenly, and gives a user always the same one', () => {
    const counts = new Array<number>(FEED_BUCKETS).fill(0);
    for (let i = 0; i < 100_000; i++) counts[feedBucketOf(`u${i}`)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(100_000 / FEED_BUCKETS / 2);
    expect(Math.max(...counts)).toBeLessThan((100_000 / FEED_BUCKETS) * 2);
    expect(feedBucketOf('user-42')).toBe(feedBucketOf('user-42'));
  });
});

describe('chunkByFeed', () => {
  it('keeps every firing once, in chunks of at most the size, and a feed bucket (so a user) in one chunk only', () => {
    // 2,000 firings among 1,000 users, skewed: a few users have many.
    const firings = Array.from({ length: 2000 }, (_, i) => firing(i, `u${Math.floor(1000 * ((i * 7919) % 2000) ** 3 / 2000 ** 3)}`));
    const chunks = chunkByFeed(firings, 500);
    expect(chunks.flat().map((f) => f.id).sort((a, b) => a - b)).toEqual(firings.map((f) => f.id));
    const chunkOf = new Map<number, number>();
    chunks.forEach((c, i) => {
      expect(c.length).toBeLessThanOrEqual(500);
      for (const f of c) {
        const b = feedBucketOf(f.n.userId);
        expect(chunkOf.get(b) ?? i, f.n.userId).toBe(i);
        chunkOf.set(b, i);
      }
    });
    expect(chunks.length).toBeGreaterThan(3);
  });

  it('fills chunks up to the size, and lets one bucket alone exceed it', () => {
    // Users of distinct buckets, and six firings of one user.
    const users: string[] = [];
    for (let i = 0; users.length < 10; i++) if (!users.some((u) => feedBucketOf(u) === feedBucketOf(`v${i}`))) users.push(`v${i}`);
    expect(chunkByFeed(users.map((u, i) => firing(i, u)), 4).map((c) => c.length)).toEqual([4, 4, 2]);
    const big = [firing(1, users[0]!), ...Array.from({ length: 6 }, (_, i) => firing(10 + i, users[1]!)), firing(2, users[2]!)];
    expect(chunkByFeed(big, 4).map((c) => c.length)).toEqual([1, 6, 1]);
  });

  it('gives no chunk for no firings', () => {
    expect(chunkByFeed([], 500)).toEqual([]);
  });
});
