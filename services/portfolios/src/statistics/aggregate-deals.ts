import type { AssetRef } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { compareDeals } from '../deals/deal-order.js';
import { runningHoldings } from '../deals/holding-timeline.js';
import { type AssetAggregate, assetKey, type CashFlow, type DealInput, type PortfolioState, STATE_FORMAT_VERSION } from './statistics.types.js';

function emptyAggregate(asset: AssetRef): AssetAggregate {
  const zero = Decimal.ZERO;
  return { asset, quantity: zero, costBasis: zero, fixed: zero, accruals: zero, expenses: zero, commissions: zero, taxes: zero, invested: zero, dealsCount: 0 };
}

/**
 * Applies one deal to an asset's aggregate (weighted average cost), in exact decimals. Returns the deal's cash
 * flow. `heldAfter` is the exact holding after the deal (`runningHoldings`, the deal service's rule): the
 * position is closed, and its cost basis reset, only when that is zero. Without it the holding is summed here.
 */
export function applyDeal(agg: AssetAggregate, deal: DealInput, heldAfter?: Decimal): Decimal {
  const amount = deal.quantity.times(deal.price);
  agg.commissions = agg.commissions.plus(deal.commission);
  agg.dealsCount += 1;
  switch (deal.type) {
    case 'buy':
      agg.quantity = heldAfter ?? agg.quantity.plus(deal.quantity);
      agg.costBasis = agg.costBasis.plus(amount);
      agg.invested = agg.invested.plus(amount);
      return amount.plus(deal.commission).negated();
    case 'sell': {
      // The API never lets a sell exceed the holding; should one exist anyway, the excess is realised at zero cost.
      const held = agg.quantity.max(Decimal.ZERO);
      const covered = deal.quantity.min(held);
      // The cost of the units sold at the average price, costBasis x covered / held: one rounding (20 places),
      // none at all when everything is sold.
      const removed = covered.cmp(held) === 0 ? agg.costBasis : agg.costBasis.times(covered).div(held);
      agg.fixed = agg.fixed.plus(amount).minus(removed);
      agg.costBasis = agg.costBasis.minus(removed);
      agg.quantity = heldAfter ?? held.minus(covered);
      if (agg.quantity.sign() <= 0) {
        agg.quantity = Decimal.ZERO;
        agg.costBasis = Decimal.ZERO;
      }
      return amount.minus(deal.commission);
    }
    case 'dividend':
    case 'coupon':
      agg.accruals = agg.accruals.plus(amount);
      return amount.minus(deal.commission);
    case 'fee':
      agg.expenses = agg.expenses.plus(amount);
      return amount.plus(deal.commission).negated();
    case 'tax':
      agg.taxes = agg.taxes.plus(amount);
      return amount.plus(deal.commission).negated();
  }
}

/**
 * Aggregates a portfolio's deals into its price-independent STATE: per asset holdings, cost basis,
 * realised result, accruals, expenses, commissions, taxes; and the cash flows (per date) for XIRR.
 */
export function aggregateDeals(deals: readonly DealInput[]): PortfolioState {
  const ordered = [...deals].sort(compareDeals);
  // Exact holdings after each deal, per asset (the same rule as the deal service's position events).
  const heldAfter = new Map<DealInput, Decimal>();
  const dealsByAsset = new Map<string, DealInput[]>();
  for (const d of ordered) {
    const key = assetKey(d.asset);
    const list = dealsByAsset.get(key);
    if (list) list.push(d);
    else dealsByAsset.set(key, [d]);
  }
  for (const assetDeals of dealsByAsset.values()) {
    runningHoldings(assetDeals).forEach((held, i) => heldAfter.set(assetDeals[i]!, held));
  }
  const byAsset = new Map<string, AssetAggregate>();
  const flowsByDate = new Map<string, Decimal>();
  for (const deal of ordered) {
    const key = assetKey(deal.asset);
    let agg = byAsset.get(key);
    if (!agg) {
      agg = emptyAggregate({ type: deal.asset.type, id: deal.asset.id });
      byAsset.set(key, agg);
    }
    const flow = applyDeal(agg, deal, heldAfter.get(deal));
    flowsByDate.set(deal.date, (flowsByDate.get(deal.date) ?? Decimal.ZERO).plus(flow));
  }
  const cashFlows: CashFlow[] = [...flowsByDate.entries()]
    .map(([date, amount]) => ({ date, amount }))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { formatVersion: STATE_FORMAT_VERSION, assets: [...byAsset.values()], cashFlows, dealsCount: deals.length };
}
