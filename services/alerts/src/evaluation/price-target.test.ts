import { describe, expect, it } from 'vitest';
import type { EvaluationContext, NotificationState, RateView } from './evaluation.types.js';
import { evaluatePriceTarget, operatorFor } from './price-target.js';

const now = new Date('2026-11-20T10:00:00Z');
const ctx: EvaluationContext = { now, maxRateAgeMs: 60 * 60_000, marketTz: 'Europe/Moscow' };
const target = (over: Partial<NotificationState> = {}): NotificationState => ({
  id: 1,
  userId: 'u',
  kind: 'price-target',
  targetType: 'asset',
  targetId: 7,
  assetType: 'share',
  isActive: true,
  operator: '>=',
  value: 100,
  initialValue: 100,
  cooldownMinutes: null,
  lastTriggeredAt: null,
  cycle: 0,
  operatorRateAsOf: null,
  ...over,
});
const rate = (r: number | null, over: Partial<RateView> = {}): RateView => ({
  assetType: 'share',
  assetId: 7,
  ticker: 'SBER',
  rate: r,
  change24h: 1,
  asOf: new Date(now.getTime() - 60_000),
  observedAt: new Date(now.getTime() - 30_000),
  ...over,
});

describe('operatorFor', () => {
  it('is >= for a target above the rate, <= below, none when equal', () => {
    expect(operatorFor(110, 100)).toBe('>=');
    expect(operatorFor(90, 100)).toBe('<=');
    expect(operatorFor(100, 100)).toBeNull();
  });
});

describe('evaluatePriceTarget', () => {
  it('fires when the rate reaches the target from below (>=), then deactivates with last_triggered_at', () => {
    expect(evaluatePriceTarget(target(), rate(99.99), ctx)).toBeNull();
    const d = evaluatePriceTarget(target(), rate(100), ctx)!;
    expect(d).toMatchObject({ stepKey: 'c0', threshold: 100, nextThreshold: null, next: { isActive: false, lastTriggeredAt: now } });
    expect(evaluatePriceTarget(target(), rate(120), ctx)).not.toBeNull();
  });

  it('fires only downwards with <=: a rate above the target does not fire', () => {
    const n = target({ operator: '<=', value: 90 });
    expect(evaluatePriceTarget(n, rate(95), ctx)).toBeNull();
    expect(evaluatePriceTarget(n, rate(90), ctx)).not.toBeNull();
    expect(evaluatePriceTarget(n, rate(80), ctx)).not.toBeNull();
  });

  it('never fires on a stale rate, a missing rate, or when inactive', () => {
    expect(evaluatePriceTarget(target(), rate(150, { asOf: new Date(now.getTime() - 61 * 60_000) }), ctx)).toBeNull();
    expect(evaluatePriceTarget(target(), rate(null), ctx)).toBeNull();
    expect(evaluatePriceTarget(target(), undefined, ctx)).toBeNull();
    expect(evaluatePriceTarget(target({ isActive: false }), rate(150), ctx)).toBeNull();
  });

  it('keys the firing by cycle, so a switched alert has a new key', () => {
    expect(evaluatePriceTarget(target({ cycle: 3 }), rate(101), ctx)!.stepKey).toBe('c3');
  });
});

describe('evaluatePriceTarget: the rate its direction was decided from', () => {
  const decidedAt = new Date(now.getTime() - 120_000);
  it('never fires on a rate older than the one the operator was decided from', () => {
    const n = target({ operator: '<=', value: 105, initialValue: 105, operatorRateAsOf: decidedAt });
    expect(evaluatePriceTarget(n, rate(100, { asOf: new Date(decidedAt.getTime() - 1) }), ctx)).toBeNull();
  });

  it('fires on a rate as new as that one or newer that reaches the target', () => {
    const n = target({ operator: '<=', value: 105, initialValue: 105, operatorRateAsOf: decidedAt });
    expect(evaluatePriceTarget(n, rate(100, { asOf: decidedAt }), ctx)?.stepKey).toBe('c0');
    expect(evaluatePriceTarget(n, rate(104, { asOf: new Date(decidedAt.getTime() + 60_000) }), ctx)?.threshold).toBe(105);
  });

  it('a row without it (created before it was recorded) fires on any fresh rate', () => {
    expect(evaluatePriceTarget(target({ operatorRateAsOf: null }), rate(100, { asOf: new Date(now.getTime() - 3_600_000) }), ctx)).not.toBeNull();
  });
});
