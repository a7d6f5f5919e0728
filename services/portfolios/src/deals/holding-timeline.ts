import type { DealType } from '@invest/contracts';
import { compareDeals } from './deal-order.js';

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
 * Quantities as exact decimals: a quantity is stored as its shortest decimal text (`String(n)`), so the
 * holding is summed exactly, as the database's numeric sum does, with no tolerance that would let a
 * tiny oversell through or hide a tiny holding. Each quantity becomes an integer at one common scale.
 */
function exactQuantities(quantities: readonly number[]): { units: bigint[]; exponent: number } {
  const parsed = quantities.map((q) => {
    const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(Math.abs(q)));
    if (!m) throw new RangeError(`not a finite quantity: ${q}`);
    const fraction = m[2] ?? '';
    return { digits: BigInt((q < 0 ? '-' : '') + m[1] + fraction), exponent: Number(m[3] ?? 0) - fraction.length };
  });
  const exponent = Math.min(0, ...parsed.map((p) => p.exponent));
  return { units: parsed.map((p) => p.digits * 10n ** BigInt(p.exponent - exponent)), exponent };
}

const toNumber = (units: bigint, exponent: number): number => Number.parseFloat(`${units}e${exponent}`);

/**
 * Walks one asset's deals in order (see compareDeals) and returns the first sell that sells more than is
 * held at that point, or null when the history is possible.
 */
export function findOversell(deals: readonly HoldingDeal[]): Oversell | null {
  const ordered = [...deals].sort(compareDeals);
  const { units, exponent } = exactQuantities(ordered.map((d) => d.quantity));
  let held = 0n;
  for (const [i, d] of ordered.entries()) {
    if (d.type === 'buy') held += units[i]!;
    else if (d.type === 'sell') {
      if (units[i]! > held) return { dealId: d.id, date: d.date, held: toNumber(held, exponent), sold: d.quantity };
      held -= units[i]!;
    }
  }
  return null;
}

/** Units held after all the deals (exactly; zero only when buys and sells cancel out). */
export function finalHolding(deals: readonly HoldingDeal[]): number {
  const { units, exponent } = exactQuantities(deals.map((d) => d.quantity));
  let held = 0n;
  deals.forEach((d, i) => {
    if (d.type === 'buy') held += units[i]!;
    else if (d.type === 'sell') held -= units[i]!;
  });
  return toNumber(held, exponent);
}

/**
 * Units held after each deal, in the order given (one asset's deals, already ordered by compareDeals), summed
 * exactly like `finalHolding`: zero only when buys and sells cancel out exactly. A sell beyond the holding
 * (the API never records one) empties it rather than going negative, as the statistics aggregation does.
 * Statistics use this so their open/closed positions agree with the deal service's position events.
 */
export function runningHoldings(deals: readonly HoldingDeal[]): number[] {
  const { units, exponent } = exactQuantities(deals.map((d) => d.quantity));
  let held = 0n;
  return deals.map((d, i) => {
    if (d.type === 'buy') held += units[i]!;
    else if (d.type === 'sell') held = units[i]! > held ? 0n : held - units[i]!;
    return toNumber(held, exponent);
  });
}

/** What a change of an asset's deals does to the portfolio's membership of that asset. */
export function positionTransition(before: number, after: number): 'opened' | 'closed' | null {
  if (before <= 0 && after > 0) return 'opened';
  if (before > 0 && after <= 0) return 'closed';
  return null;
}
