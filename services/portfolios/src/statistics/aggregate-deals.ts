import type { AssetRef } from '@invest/contracts';
import { compareDeals } from '../deals/deal-order.js';
import { runningHoldings } from '../deals/holding-timeline.js';
import { type AssetAggregate, assetKey, type CashFlow, type DealInput, type PortfolioState, STATE_FORMAT_VERSION } from './statistics.types.js';

function emptyAggregate(asset: AssetRef): AssetAggregate {
  return { asset, quantity: 0, costBasis: 0, fixed: 0, accruals: 0, expenses: 0, commissions: 0, taxes: 0, invested: 0, dealsCount: 0 };
}

/**
 * Applies one deal to an asset's aggregate (weighted average cost). Returns the deal's cash flow. `heldAfter`
 * is the exact holding after the deal (`runningHoldings`, the deal service's rule): the position is closed,
 * and its cost basis reset, only when that is exactly zero. Without it the holding is summed as doubles.
 */
export function applyDeal(agg: AssetAggregate, deal: DealInput, heldAfter?: number): number {
  const amount = deal.quantity * deal.price;
  agg.commissions += deal.commission;
  agg.dealsCount += 1;
  switch (deal.type) {
    case 'buy':
      agg.quantity = heldAfter ?? agg.quantity + deal.quantity;
      agg.costBasis += amount;
      agg.invested += amount;
      return -(amount + deal.commission);
    case 'sell': {
      // The API never lets a sell exceed the holding; should one exist anyway, the excess is realised at zero cost.
      const held = Math.max(agg.quantity, 0);
      const average = held > 0 ? agg.costBasis / held : 0;
      const covered = Math.min(deal.quantity, held);
      agg.fixed += covered * (deal.price - average) + (deal.quantity - covered) * deal.price;
      agg.costBasis -= covered * average;
      agg.quantity = heldAfter ?? held - covered;
      if (agg.quantity <= 0) {
        agg.quantity = 0;
        agg.costBasis = 0;
      }
      return amount - deal.commission;
    }
    case 'dividend':
    case 'coupon':
      agg.accruals += amount;
      return amount - deal.commission;
    case 'fee':
      agg.expenses += amount;
      return -(amount + deal.commission);
    case 'tax':
      agg.taxes += amount;
      return -(amount + deal.commission);
  }
}

/**
 * Aggregates a portfolio's deals into its price-independent STATE: per asset holdings, cost basis,
 * realised result, accruals, expenses, commissions, taxes; and the cash flows (per date) for XIRR.
 */
export function aggregateDeals(deals: readonly DealInput[]): PortfolioState {
  const ordered = [...deals].sort(compareDeals);
  // Exact holdings after each deal, per asset (the same rule as the deal service's position events).
  const heldAfter = new Map<DealInput, number>();
  const dealsByAsset = new Map<string, DealInput[]>();
  for (const d of ordered) {
    const key = assetKey(d.asset);
    dealsByAsset.set(key, [...(dealsByAsset.get(key) ?? []), d]);
  }
  for (const assetDeals of dealsByAsset.values()) {
    runningHoldings(assetDeals).forEach((held, i) => heldAfter.set(assetDeals[i]!, held));
  }
  const byAsset = new Map<string, AssetAggregate>();
  const flowsByDate = new Map<string, number>();
  for (const deal of ordered) {
    const key = assetKey(deal.asset);
    let agg = byAsset.get(key);
    if (!agg) {
      agg = emptyAggregate({ type: deal.asset.type, id: deal.asset.id });
      byAsset.set(key, agg);
    }
    const flow = applyDeal(agg, deal, heldAfter.get(deal));
    flowsByDate.set(deal.date, (flowsByDate.get(deal.date) ?? 0) + flow);
  }
  const cashFlows: CashFlow[] = [...flowsByDate.entries()]
    .map(([date, amount]) => ({ date, amount }))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { formatVersion: STATE_FORMAT_VERSION, assets: [...byAsset.values()], cashFlows, dealsCount: deals.length };
}
