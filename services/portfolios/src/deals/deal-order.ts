import type { DealType } from '@invest/contracts';

/**
 * Deals carry a date, not a time. Within one date the service assumes money came in before it went out:
 * buys first, then cash events (dividend, coupon, fee, tax), then sells, each group in the order the
 * deals were recorded. Aggregation and the oversell check use this same order.
 */
const RANK: Record<DealType, number> = { buy: 0, dividend: 1, coupon: 1, fee: 1, tax: 1, sell: 2 };

export function compareDeals(a: { date: string; type: DealType; id: number }, b: { date: string; type: DealType; id: number }): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  const r = RANK[a.type] - RANK[b.type];
  return r !== 0 ? r : a.id - b.id;
}
