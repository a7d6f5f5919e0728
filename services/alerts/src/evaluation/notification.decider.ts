import type { PriceTargetDirection } from '@invest/contracts';
import type { Decider } from '@invest/platform';
import { Decimal } from '@invest/platform/decimal/decimal';
import { startOfDayInZone } from '@invest/platform/time/zoned-time';
import type { EvaluationContext, FiringDecision, NotificationState, RateView } from './evaluation.types.js';

/**
 * One notification's evaluation as a decider (billing's shape): `decide` answers fresh rates with the firing
 * they cause, `evolve` says the notification's state after it. Pure: the evaluator reads the state and the
 * rates, and records the firing with the state `evolve` gives, only where the row is still as it was read.
 */

/** Rates of a notification's target (its asset's, or every member's of a portfolio/watchlist), at `now`. */
export type NotificationCommand = { type: 'EvaluateRates'; rates: readonly RateView[] } & EvaluationContext;

export type NotificationEvent =
  /** The row as created or switched on (a test's history; the service's rows are read as they stand). */
  | { type: 'NotificationCreated'; data: NotificationState }
  | { type: 'NotificationFired'; data: FiringDecision };

/**
 * The operator of a new price-target, fixed at creation. Without a direction the current rate decides: `>=`
 * when the target is above it, `<=` when below. With one, `above` is `>=` and `below` is `<=`. Null when there
 * is nothing to wait for (the request is refused): the target equals the rate, or the rate is already at or
 * past it in the chosen direction (above with the target at or under the rate, below with it at or over).
 */
export function operatorFor(targetPrice: Decimal, currentRate: Decimal, direction?: PriceTargetDirection | null): '>=' | '<=' | null {
  const c = targetPrice.cmp(currentRate);
  if (direction === 'above') return c > 0 ? '>=' : null;
  if (direction === 'below') return c < 0 ? '<=' : null;
  return c > 0 ? '>=' : c < 0 ? '<=' : null;
}

/**
 * The threshold a price-change notification has now: the daily reset (spec state table) returns
 * initial_value to value when the last trigger was before the start of today in MARKET_TZ. The reset is
 * applied when read (here), not by a job, so every evaluator and the list agree on it at any instant; a
 * reset starts a new cycle, so the steps of the new day get new firing keys.
 */
export function currentThreshold(n: Pick<NotificationState, 'value' | 'initialValue' | 'lastTriggeredAt' | 'cycle'>, ctx: Pick<EvaluationContext, 'now' | 'marketTz'>): { initialValue: Decimal; cycle: number } {
  if (n.lastTriggeredAt && n.initialValue.cmp(n.value) !== 0 && n.lastTriggeredAt < startOfDayInZone(ctx.now, ctx.marketTz)) {
    return { initialValue: n.value, cycle: n.cycle + 1 };
  }
  return { initialValue: n.initialValue, cycle: n.cycle };
}

const isFresh = (rate: RateView, ctx: EvaluationContext) => ctx.now.getTime() - rate.asOf.getTime() <= ctx.maxRateAgeMs;

/**
 * Price-target (spec state table): an active notification whose asset's fresh rate, at least as new as the
 * rate its operator was decided from, reached the target fires once, then is inactive. The step key is its
 * cycle, which a switch bumps, so a re-activated alert can fire again but a redelivered rate cannot fire it twice.
 */
function decidePriceTarget(n: NotificationState, c: NotificationCommand): FiringDecision | null {
  const rate = c.rates.find((r) => r.rate !== null && isFresh(r, c));
  if (!rate || rate.rate === null) return null;
  // A rate older than the one the direction was decided from (a backlog, or alerts' rate behind the
  // screener's at creation) says nothing about a move since: it may sit on the other side of the target.
  if (n.operatorRateAsOf !== null && rate.asOf.getTime() < n.operatorRateAsOf.getTime()) return null;
  // Exactly: a target may have more significant digits than a double keeps (1000000000000.00000001 is the
  // double 1e12), and a rate is the decimal its double's shortest text says.
  const reached = Decimal.of(rate.rate).cmp(n.value);
  if (n.operator === '>=' ? reached < 0 : reached > 0) return null;
  return { notificationId: n.id, stepKey: `c${n.cycle}`, crossed: [rate], headline: rate, threshold: n.value, nextThreshold: null, cooldownEndsAt: null, cycle: n.cycle, firedAt: c.now };
}

/**
 * Price-change (spec state table and rules 1-4): fires when the |24h change| of the target (the asset, or
 * each asset of the portfolio or watchlist) reaches the current threshold and the cooldown has passed.
 * One firing lists every asset that crossed, furthest first; the threshold then grows by the step
 * (5 → 10 → 15) and the notification stays active. Stale rates never count.
 */
function decidePriceChange(n: NotificationState, c: NotificationCommand): FiringDecision | null {
  if (n.lastTriggeredAt && n.cooldownMinutes && c.now.getTime() < n.lastTriggeredAt.getTime() + n.cooldownMinutes * 60_000) return null;
  const { initialValue, cycle } = currentThreshold(n, c);
  // A whole percent (a multiple of a PRICE_CHANGE_THRESHOLDS step), which a double holds exactly; the 24h change
  // is a double's ratio, not money.
  const floor = initialValue.toNumber();
  const crossed = c.rates
    .filter((r) => r.change24h !== null && isFresh(r, c) && Math.abs(r.change24h) >= floor)
    .sort((a, b) => Math.abs(b.change24h!) - Math.abs(a.change24h!) || a.assetId - b.assetId);
  if (crossed.length === 0) return null;
  return {
    notificationId: n.id,
    stepKey: `c${cycle}:t${initialValue.toString()}`,
    crossed,
    headline: crossed[0]!,
    threshold: initialValue,
    nextThreshold: initialValue.plus(n.value),
    cooldownEndsAt: n.cooldownMinutes ? new Date(c.now.getTime() + n.cooldownMinutes * 60_000) : null,
    cycle,
    firedAt: c.now,
  };
}

export const notificationDecider: Decider<NotificationState | null, NotificationCommand, NotificationEvent> = {
  initialState: () => null,

  decide(command, n) {
    if (!n?.isActive) return [];
    const fired = n.kind === 'price-target' ? decidePriceTarget(n, command) : decidePriceChange(n, command);
    return fired ? [{ type: 'NotificationFired', data: fired }] : [];
  },

  evolve(n, event) {
    if (event.type === 'NotificationCreated') return event.data;
    if (!n) return n;
    const d = event.data;
    // A price-target fires once; a price-change waits for its next threshold.
    return { ...n, isActive: n.kind === 'price-change', initialValue: d.nextThreshold ?? n.initialValue, cycle: d.cycle, lastTriggeredAt: d.firedAt };
  },
};

/** The firing these rates cause, or null: `decide` for callers holding a row's state. */
export function firingOf(n: NotificationState, rates: readonly RateView[], ctx: EvaluationContext): FiringDecision | null {
  const [event] = notificationDecider.decide({ type: 'EvaluateRates', rates, ...ctx }, n) as NotificationEvent[];
  return event?.type === 'NotificationFired' ? event.data : null;
}

/** The state a firing leaves: `evolve`. */
export const afterFiring = (n: NotificationState, d: FiringDecision): NotificationState => notificationDecider.evolve(n, { type: 'NotificationFired', data: d })!;
