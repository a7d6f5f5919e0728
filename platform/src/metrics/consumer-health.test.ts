import { describe, expect, it } from 'vitest';
import { ProgressWatch } from './consumer-health.js';

describe('ProgressWatch', () => {
  it('is stuck once lag waits with no message processed and no shrinking for the configured time', () => {
    const w = new ProgressWatch(1_000, 0);
    w.sampled(3, 100);
    expect(w.stuckForMs(999)).toBeUndefined();
    w.sampled(4, 1_000);
    expect(w.stuckForMs(1_000)).toBe(1_000);
  });

  it('counts a processed message, a shrinking lag or no lag at all as progress', () => {
    const w = new ProgressWatch(1_000, 0);
    w.sampled(3, 500);
    w.processed(900);
    expect(w.stuckForMs(1_500)).toBeUndefined();
    expect(w.stuckForMs(1_900)).toBe(1_000);
    // Another instance working the same durable: fewer waiting, though this one processed nothing.
    w.sampled(2, 2_000);
    expect(w.stuckForMs(2_500)).toBeUndefined();
    w.sampled(0, 5_000);
    expect(w.stuckForMs(9_000)).toBeUndefined();
  });
});
