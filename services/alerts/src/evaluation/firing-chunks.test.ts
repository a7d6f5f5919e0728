import { describe, expect, it } from 'vitest';
import { chunkByUser } from './firing-chunks.js';

const firing = (id: number, userId: string) => ({ id, n: { userId } });

describe('chunkByUser', () => {
  it('keeps every firing once, in chunks of at most the size, and a user in one chunk only', () => {
    // 2,000 firings among 300 users, skewed: a few users have many.
    const firings = Array.from({ length: 2000 }, (_, i) => firing(i, `u${Math.floor(300 * ((i * 7919) % 2000) ** 3 / 2000 ** 3)}`));
    const chunks = chunkByUser(firings, 500);
    expect(chunks.flat().map((f) => f.id).sort((a, b) => a - b)).toEqual(firings.map((f) => f.id));
    const chunkOf = new Map<string, number>();
    chunks.forEach((c, i) => {
      expect(c.length).toBeLessThanOrEqual(500);
      for (const f of c) {
        expect(chunkOf.get(f.n.userId) ?? i, f.n.userId).toBe(i);
        chunkOf.set(f.n.userId, i);
      }
    });
    expect(chunks.length).toBeGreaterThan(3);
  });

  it('fills chunks up to the size when users are small, and lets one user alone exceed it', () => {
    const small = Array.from({ length: 10 }, (_, i) => firing(i, `u${i}`));
    expect(chunkByUser(small, 4).map((c) => c.length)).toEqual([4, 4, 2]);
    const big = [firing(1, 'a'), ...Array.from({ length: 6 }, (_, i) => firing(10 + i, 'b')), firing(2, 'c')];
    expect(chunkByUser(big, 4).map((c) => c.map((f) => f.n.userId).join(''))).toEqual(['a', 'bbbbbb', 'c']);
  });

  it('gives no chunk for no firings', () => {
    expect(chunkByUser([], 500)).toEqual([]);
  });
});
