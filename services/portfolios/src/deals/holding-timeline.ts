import type { DealType } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { compareDeals } from './deal-order.js';

export interface HoldingDeal {
  id: number;
  type: DealType;
  /** Exact (as stored): holdings are summed exactly, as the database's numeric sum does, with no tolerance that would let a tiny oversell through or hide a tiny holding. */
  quantity: Decimal;
  date: string;
}

export interface Oversell {
  /** The sell that would take the holding below zero. */
  dealId: number;
  date: string;
  /** Units held just before that sell. */
  held: Decimal;
  sold: Decimal;
}

/**
 * Walks one asset's deals in order (see compareDeals) and returns the first sell that sells more than is
 * held at that point, or null when the history is possible.
 */
export function findOversell(deals: readonly HoldingDeal[]): Oversell | null {
  const ordered = [...deals].sort(compareDeals);
  let held = Decimal.ZERO;
  for (const d of ordered) {
    if (d.type === 'buy') held = held.plus(d.quantity);
    else if (d.type === 'sell') {
      if (d.quantity.cmp(held) > 0) return { dealId: d.id, date: d.date, held, sold: d.quantity };
      held = held.minus(d.quantity);
    }
  }
  return null;
}

/** Units held after all the deals (exactly; zero only when buys and sells cancel out). */
export function finalHolding(deals: readonly HoldingDeal[]): Decimal {
  let held = Decimal.ZERO;
  for (const d of deals) {
    if (d.type === 'buy') held = held.plus(d.quantity);
    else if (d.type === 'sell') held = held.minus(d.quantity);
  }
  return held;
}

/**
 * Units held after each deal, in the order given (one asset's deals, already ordered by compareDeals), summed
 * exactly like `finalHolding`: zero only when buys and sells cancel out exactly. A sell beyond the holding
 * (the API never records one) empties it rather than going negative, as the statistics aggregation does.
 * Statistics use this so their open/closed positions agree with the deal service's position events.
 */
export function runningHoldings(deals: readonly HoldingDeal[]): Decimal[] {
  let held = Decimal.ZERO;
  return deals.map((d) => {
    if (d.type === 'buy') held = held.plus(d.quantity);
    else if (d.type === 'sell') held = d.quantity.cmp(held) > 0 ? Decimal.ZERO : held.minus(d.quantity);
    return held;
  });
}

/** What a change of an asset's deals does to the portfolio's membership of that asset. */
export function positionTransition(before: Decimal, after: Decimal): 'opened' | 'closed' | null {
  if (before.sign() <= 0 && after.sign() > 0) return 'opened';
  if (before.sign() > 0 && after.sign() <= 0) return 'closed';
  return null;
}
