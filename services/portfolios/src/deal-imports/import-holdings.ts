import { Decimal } from '@invest/platform/decimal/decimal';
import { compareDeals } from '../deals/deal-order.js';
import type { HoldingDeal, Oversell } from '../deals/holding-timeline.js';

/**
 * Which of the `candidates` (new deals of one asset) can join its `history` without any sell selling more than is
 * held at its date (the rule of a single deal, deals/holding-timeline.ts), in one ordered walk. A candidate sell
 * beyond the holding is refused. An existing sell left beyond the holding by candidate sells before it refuses
 * those, latest first, until it fits. Answers the refused candidates with the sell that failed.
 */
export function refuseOversells(history: readonly HoldingDeal[], candidates: readonly HoldingDeal[]): Map<number, Oversell & { own: boolean }> {
  const ids = new Set(candidates.map((c) => c.id));
  const ordered = [...history, ...candidates].sort(compareDeals);
  const refused = new Map<number, Oversell & { own: boolean }>();
  const acceptedSells: HoldingDeal[] = [];
  let held = Decimal.ZERO;
  for (const d of ordered) {
    if (d.type === 'buy') held = held.plus(d.quantity);
    if (d.type !== 'sell') continue;
    if (d.quantity.cmp(held) <= 0) {
      held = held.minus(d.quantity);
      if (ids.has(d.id)) acceptedSells.push(d);
      continue;
    }
    if (ids.has(d.id)) {
      refused.set(d.id, { dealId: d.id, date: d.date, held, sold: d.quantity, own: true });
      continue;
    }
    // An existing sell: the history alone never oversells, so taking back earlier candidate sells makes it fit.
    const failed = { dealId: d.id, date: d.date, held, sold: d.quantity, own: false };
    while (d.quantity.cmp(held) > 0 && acceptedSells.length > 0) {
      const back = acceptedSells.pop()!;
      held = held.plus(back.quantity);
      refused.set(back.id, failed);
    }
    held = d.quantity.cmp(held) > 0 ? Decimal.ZERO : held.minus(d.quantity);
  }
  return refused;
}
