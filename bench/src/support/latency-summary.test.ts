import { describe, expect, it } from 'vitest';
import { formatLatencySummary, summariseLatencies } from './latency-summary.js';

describe('summariseLatencies', () => {
  it('counts the batches within the target and finds the size up to which all were', () => {
    const s = summariseLatencies(
      [
        { firings: 2_353, p99Ms: 219 },
        { firings: 1_046, p99Ms: 118 },
        { firings: 2_057, p99Ms: 198 },
        { firings: 3_342, p99Ms: 199 },
        { firings: 1_967, p99Ms: 232 },
      ],
      200,
    );
    expect(s.within).toBe(3);
    expect(s.total).toBe(5);
    // 1,967 firings missed it, so "every batch up to" stops below it even though 2,057 and 3,342 met it.
    expect(s.allWithinUpTo).toBe(1_046);
    expect(s.over).toEqual([
      { firings: 1_967, p99Ms: 232 },
      { firings: 2_353, p99Ms: 219 },
    ]);
  });

  it('says 0 when the smallest batch missed the target, and every size when none did', () => {
    expect(summariseLatencies([{ firings: 300, p99Ms: 250 }, { firings: 900, p99Ms: 120 }], 200).allWithinUpTo).toBe(0);
    const all = summariseLatencies([{ firings: 300, p99Ms: 80 }, { firings: 900, p99Ms: 200 }], 200);
    expect(all).toEqual({ targetMs: 200, within: 2, total: 2, allWithinUpTo: 900, over: [] });
  });

  it('orders equal sizes by latency, so a miss among them does not count the size as met', () => {
    const s = summariseLatencies([{ firings: 500, p99Ms: 210 }, { firings: 500, p99Ms: 90 }, { firings: 100, p99Ms: 50 }], 200);
    expect(s.allWithinUpTo).toBe(100);
    expect(s.within).toBe(2);
  });
});

describe('formatLatencySummary', () => {
  it('names the target, the counts and each batch over it', () => {
    const line = formatLatencySummary(summariseLatencies([{ firings: 3_342, p99Ms: 284.4 }, { firings: 1_046, p99Ms: 118 }], 200));
    expect(line).toBe('p99 ≤ 200 ms in 1 of 2 measured batches; every batch up to 1,046 firings within it; over it: 3,342 firings 284 ms');
  });
});
