import { describe, expect, it } from 'vitest';
import type { EvaluationContext, NotificationState, RateView } from './evaluation.types.js';
import { cooldownEnd, currentThreshold, evaluatePriceChange } from './price-change.js';

// 10:00 UTC = 13:00 in Moscow; the Moscow day started at 2026-11-19T21:00Z.
const now = new Date('2026-11-20T10:00:00Z');
const ctx = (at = now): EvaluationContext => ({ now: at, maxRateAgeMs: 60 * 60_000, marketTz: 'Europe/Moscow' });
const change = (over: Partial<NotificationState> = {}): NotificationState => ({
  id: 5,
  userId: 'u',
  kind: 'price-change',
  targetType: 'asset',
  targetId: 7,
  assetType: 'share',
  isActive: true,
  operator: '>=',
  value: 5,
  initialValue: 5,
  cooldownMinutes: 60,
  lastTriggeredAt: null,
  cycle: 0,
  operatorRateAsOf: null,
  ...over,
});
const rate = (c: number | null, over: Partial<RateView> = {}): RateView => ({
  assetType: 'share',
  assetId: 7,
  ticker: 'SBER',
  rate: 100,
  change24h: c,
  asOf: new Date(now.getTime() - 60_000),
  observedAt: new Date(now.getTime() - 60_000),
  ...over,
});
const minutes = (m: number) => new Date(now.getTime() + m * 60_000);

describe('evaluatePriceChange', () => {
  it('fires when |change| reaches the threshold, in either direction, and grows it by the step', () => {
    expect(evaluatePriceChange(change(), [rate(4.99)], ctx())).toBeNull();
    const up = evaluatePriceChange(change(), [rate(5)], ctx())!;
    expect(up).toMatchObject({ stepKey: 'c0:t5', threshold: 5, nextThreshold: 10, next: { isActive: true, initialValue: 10 } });
    expect(evaluatePriceChange(change(), [rate(-6)], ctx())!.threshold).toBe(5);
  });

  it('grows 5 → 10 → 15 across firings separated by the cooldown', () => {
    let n = change();
    const fired: number[] = [];
    for (const [at, c] of [[0, 6], [61, 11], [122, 16]] as const) {
      const d = evaluatePriceChange(n, [rate(c, { asOf: minutes(at) })], ctx(minutes(at)))!;
      fired.push(d.threshold);
      n = { ...n, initialValue: d.next.initialValue, cycle: d.next.cycle, lastTriggeredAt: d.next.lastTriggeredAt };
    }
    expect(fired).toEqual([5, 10, 15]);
    expect(n.initialValue).toBe(20);
  });

  it('waits for the cooldown: nothing fires before it ends, even past the next threshold', () => {
    const n = change({ initialValue: 10, lastTriggeredAt: now, cooldownMinutes: 60 });
    expect(cooldownEnd(n)).toEqual(minutes(60));
    expect(evaluatePriceChange(n, [rate(12, { asOf: minutes(59) })], ctx(minutes(59)))).toBeNull();
    expect(evaluatePriceChange(n, [rate(12, { asOf: minutes(60) })], ctx(minutes(60)))).not.toBeNull();
  });

  it('resets the threshold to the step at the start of the MARKET_TZ day, in a new cycle', () => {
    // Last fired 20:30 UTC on the 19th = 23:30 Moscow: yesterday there.
    const n = change({ initialValue: 15, lastTriggeredAt: new Date('2026-11-19T20:30:00Z'), cooldownMinutes: 60, cycle: 2 });
    expect(currentThreshold(n, ctx())).toEqual({ initialValue: 5, cycle: 3, reset: true });
    expect(evaluatePriceChange(n, [rate(6)], ctx())).toMatchObject({ stepKey: 'c3:t5', threshold: 5, nextThreshold: 10 });
    // Fired 21:30 UTC = 00:30 Moscow on the 20th: today there, no reset.
    const today = change({ initialValue: 15, lastTriggeredAt: new Date('2026-11-19T21:30:00Z'), cycle: 2 });
    expect(currentThreshold(today, ctx())).toEqual({ initialValue: 15, cycle: 2, reset: false });
    expect(evaluatePriceChange(today, [rate(6)], ctx())).toBeNull();
  });

  it('never fires on stale rates; a group lists every fresh asset that crossed, furthest first', () => {
    const stale = rate(20, { asOf: new Date(now.getTime() - 2 * 3_600_000) });
    expect(evaluatePriceChange(change(), [stale], ctx())).toBeNull();
    const group = change({ targetType: 'portfolio', assetType: null, targetId: 3 });
    const d = evaluatePriceChange(group, [rate(5.5, { assetId: 1 }), rate(-8, { assetId: 2 }), rate(2, { assetId: 3 }), { ...stale, assetId: 4 }], ctx())!;
    expect(d.crossed.map((r) => r.assetId)).toEqual([2, 1]);
    expect(d.headline.assetId).toBe(2);
  });

  it('ignores an inactive notification and a null change', () => {
    expect(evaluatePriceChange(change({ isActive: false }), [rate(50)], ctx())).toBeNull();
    expect(evaluatePriceChange(change(), [rate(null)], ctx())).toBeNull();
  });
});
