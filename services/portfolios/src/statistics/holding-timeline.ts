import type { DealType } from '@invest/contracts';
import { compareDeals, isZeroQuantity, QUANTITY_EPSILON } from './deal-order.js';

export interface HoldingDeal {
  id: number;
  type: DealType;
  quantity: number;
  date: string;
}

export interface Oversell {
  /** The sell that would take the holding below zero. */
  dealId: number;
  date: string;
  /** Units held just before that sell. */
  held: number;
  sold: number;
}

/**
 * Walks one asset's deals in order (see compareDeals) and returns the first sell that sells more than is
 * held at that point, or null when the history is possible.
 */
export function findOversell(deals: readonly HoldingDeal[]): Oversell | null {
  let held = 0;
  for (const d of [...deals].sort(compareDeals)) {
    if (d.type === 'buy') held += d.quantity;
    else if (d.type === 'sell') {
      if (d.quantity - held > QUANTITY_EPSILON) return { dealId: d.id, date: d.date, held: isZeroQuantity(held) ? 0 : held, sold: d.quantity };
      held -= d.quantity;
    }
  }
  return null;
}

/** Units held after all the deals (zero when within rounding of zero). */
export function finalHolding(deals: readonly HoldingDeal[]): number {
  let held = 0;
  for (const d of deals) {
    if (d.type === 'buy') held += d.quantity;
    else if (d.type === 'sell') held -= d.quantity;
  }
  return isZeroQuantity(held) ? 0 : held;
}

/** What a change of an asset's deals does to the portfolio's membership of that asset. */
export function positionTransition(before: number, after: number): 'opened' | 'closed' | null {
  if (before <= 0 && after > 0) return 'opened';
  if (before > 0 && after <= 0) return 'closed';
  return null;
}
