import { type Entitlements, FREE_PLAN_LIMITS, type PlanCode } from '@invest/contracts';

export type PlanLimits = Entitlements['limits'];

const PAID: PlanLimits = {
  activeNotifications: null,
  notificationTargets: ['asset', 'portfolio', 'watchlist'],
  chatMessagesPerDay: { portfolio_health: 200, support: 200 },
};

/**
 * What each plan allows (documented in services/billing/README.md). Alerts and chat enforce these; `null`
 * is unlimited. Free: a few active notifications on assets only and a few chat messages a day.
 */
export const PLAN_LIMITS: Record<PlanCode, PlanLimits> = {
  free: FREE_PLAN_LIMITS,
  'basic-m': PAID,
  'basic-y': PAID,
  'free-forever': PAID,
};

/** The best usable plan wins (any paid or complimentary access beats free). */
export function entitlementsFor(userId: string, usable: readonly { code: PlanCode; endsAt: string | null }[], planIds: Record<PlanCode, number>): Entitlements {
  const best = usable.find((u) => u.code !== 'free');
  const code: PlanCode = best?.code ?? 'free';
  return {
    userId,
    plan: { id: planIds[code], code },
    paid: code !== 'free',
    endsAt: best?.endsAt ?? null,
    limits: PLAN_LIMITS[code],
  };
}
