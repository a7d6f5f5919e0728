import { type EvaluationContext, type FiringDecision, isFresh, type NotificationState, type RateView } from './evaluation.types.js';

/**
 * The operator of a new price-target, fixed at creation: `>=` when the target is above the current rate,
 * `<=` when below; null when they are equal (nothing to wait for: the request is refused).
 */
export function operatorFor(targetPrice: number, currentRate: number): '>=' | '<=' | null {
  if (targetPrice > currentRate) return '>=';
  if (targetPrice < currentRate) return '<=';
  return null;
}

/** True when `rate` has reached `target` in the operator's direction. */
export function reached(operator: '>=' | '<=', rate: number, target: number): boolean {
  return operator === '>=' ? rate >= target : rate <= target;
}

/**
 * Price-target (spec state table): an active notification whose asset's fresh rate, at least as new as the
 * rate its operator was decided from, reached the target fires once, then is inactive with last_triggered_at set. The step key is its cycle, which a switch
 * bumps, so a re-activated alert can fire again but a redelivered rate cannot fire it twice.
 */
export function evaluatePriceTarget(n: NotificationState, rate: RateView | undefined, ctx: EvaluationContext): FiringDecision | null {
  if (n.kind !== 'price-target' || !n.isActive || !rate || rate.rate === null) return null;
  if (!isFresh(rate, ctx)) return null;
  // A rate older than the one the direction was decided from (a backlog, or alerts' rate behind the
  // screener's at creation) says nothing about a move since: it may sit on the other side of the target.
  if (n.operatorRateAsOf !== null && rate.asOf.getTime() < n.operatorRateAsOf.getTime()) return null;
  if (!reached(n.operator, rate.rate, n.value)) return null;
  return {
    notificationId: n.id,
    stepKey: `c${n.cycle}`,
    crossed: [rate],
    headline: rate,
    threshold: n.value,
    nextThreshold: null,
    cooldownEndsAt: null,
    expected: { cycle: n.cycle, initialValue: n.initialValue, lastTriggeredAt: n.lastTriggeredAt },
    next: { isActive: false, initialValue: n.initialValue, cycle: n.cycle, lastTriggeredAt: ctx.now },
  };
}
