import { startOfDayInZone } from '@invest/platform';
import { type EvaluationContext, type FiringDecision, isFresh, type NotificationState, type RateView } from './evaluation.types.js';

/**
 * The threshold a price-change notification has now: the daily reset (spec state table) returns
 * initial_value to value when the last trigger was before the start of today in MARKET_TZ. The reset is
 * applied when read (here), not by a job, so every evaluator and the list agree on it at any instant; a
 * reset starts a new cycle, so the steps of the new day get new firing keys.
 */
export function currentThreshold(n: Pick<NotificationState, 'value' | 'initialValue' | 'lastTriggeredAt' | 'cycle'>, ctx: Pick<EvaluationContext, 'now' | 'marketTz'>): { initialValue: number; cycle: number; reset: boolean } {
  if (n.lastTriggeredAt && n.initialValue !== n.value && n.lastTriggeredAt < startOfDayInZone(ctx.now, ctx.marketTz)) {
    return { initialValue: n.value, cycle: n.cycle + 1, reset: true };
  }
  return { initialValue: n.initialValue, cycle: n.cycle, reset: false };
}

/** When the cooldown after the last trigger ends (null: no trigger yet, or no cooldown). */
export function cooldownEnd(n: Pick<NotificationState, 'lastTriggeredAt' | 'cooldownMinutes'>): Date | null {
  if (!n.lastTriggeredAt || !n.cooldownMinutes) return null;
  return new Date(n.lastTriggeredAt.getTime() + n.cooldownMinutes * 60_000);
}

/**
 * Price-change (spec state table and rules 1-4): fires when the |24h change| of the target (the asset, or
 * each asset of the portfolio or watchlist) reaches the current threshold and the cooldown has passed.
 * One firing per evaluation lists every asset that crossed; the threshold then grows by the step
 * (5 → 10 → 15) and the notification stays active. Stale rates never count.
 */
export function evaluatePriceChange(n: NotificationState, rates: readonly RateView[], ctx: EvaluationContext): FiringDecision | null {
  if (n.kind !== 'price-change' || !n.isActive) return null;
  const ends = cooldownEnd(n);
  if (ends && ctx.now < ends) return null;
  const { initialValue, cycle } = currentThreshold(n, ctx);
  const crossed = rates
    .filter((r) => r.change24h !== null && isFresh(r, ctx) && Math.abs(r.change24h) >= initialValue)
    .sort((a, b) => Math.abs(b.change24h!) - Math.abs(a.change24h!) || a.assetId - b.assetId);
  if (crossed.length === 0) return null;
  const next = initialValue + n.value;
  return {
    notificationId: n.id,
    stepKey: `c${cycle}:t${initialValue}`,
    crossed,
    headline: crossed[0]!,
    threshold: initialValue,
    nextThreshold: next,
    cooldownEndsAt: n.cooldownMinutes ? new Date(ctx.now.getTime() + n.cooldownMinutes * 60_000) : null,
    expected: { cycle: n.cycle, initialValue: n.initialValue, lastTriggeredAt: n.lastTriggeredAt },
    next: { isActive: true, initialValue: next, cycle, lastTriggeredAt: ctx.now },
  };
}
