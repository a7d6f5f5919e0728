import type { HoldingRow, Holdings } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { dayChangePercentage, money, pct, percent, positionFigures } from '../statistics/position-figures.js';
import { type AssetQuote, assetKey, type PortfolioState } from '../statistics/statistics.types.js';

export interface HoldingsInput {
  /** The price-independent aggregation of the deals (`aggregateDeals`, or the state cache). */
  state: PortfolioState;
  quotes: ReadonlyMap<string, AssetQuote>;
  currency: string;
}

/**
 * HOLDINGS: one row per asset with deals (open or closed) and the totals, from the same state and the same
 * position rules as the statistics (`positionFigures`), so every figure equals the statistics field it is named
 * after: value = totalCurrentNetworth, invested = totalSpent, gain = totalCurrentIncome, day_change = change24h,
 * dividends = totalAccruals, realised = totalFixed, result = totalIncome. Definitions: PORTFOLIO_FIGURES and
 * docs/portfolio-statistics.md ("Holdings"). Rows are sorted by value, largest first, then by ticker.
 */
export function computeHoldings({ state, quotes, currency }: HoldingsInput): Holdings {
  const positions = state.assets.map((agg) => {
    const quote = quotes.get(assetKey(agg.asset));
    return { agg, quote, ticker: quote?.ticker ?? `${agg.asset.type}:${agg.asset.id}`, ...positionFigures(agg, quote) };
  });
  const sum = (f: (p: (typeof positions)[number]) => Decimal | null) => Decimal.sum(positions.map((p) => f(p) ?? Decimal.ZERO));
  const totalValue = sum((p) => p.value);

  const rows = positions
    .sort((a, b) => b.value.cmp(a.value) || a.ticker.localeCompare(b.ticker))
    .map(
      ({ agg, quote, ticker, open, price, networth, income, value, change24, dayChange }): HoldingRow => ({
        ticker,
        title: quote?.name ?? ticker,
        type: agg.asset.type,
        assetable: { type: agg.asset.type, id: agg.asset.id },
        currency: quote?.currency ?? null,
        open,
        quantity: money(agg.quantity),
        average_price: money(open ? agg.costBasis.div(agg.quantity) : Decimal.ZERO),
        current_price: price,
        value: networth === null ? null : money(networth),
        invested: money(agg.costBasis),
        gain: income === null ? null : money(income),
        gain_percentage: income !== null && agg.costBasis.sign() > 0 ? pct(percent(income, agg.costBasis)) : null,
        day_change: dayChange === null ? null : money(dayChange),
        day_change_percentage: open && dayChange !== null ? change24 : null,
        weight: totalValue.sign() > 0 ? pct(percent(value, totalValue)) : 0,
        dividends: money(agg.accruals),
        realised: money(agg.fixed),
        deals_count: agg.dealsCount,
      }),
    );

  const invested = sum((p) => p.agg.costBasis);
  const gain = sum((p) => p.income);
  const dayChange = sum((p) => p.dayChange);
  const dividends = sum((p) => p.agg.accruals);
  const realised = sum((p) => p.agg.fixed);
  const costs = sum((p) => p.agg.expenses.plus(p.agg.commissions).plus(p.agg.taxes));
  return {
    rows,
    totals: {
      currency,
      value: money(totalValue),
      invested: money(invested),
      gain: money(gain),
      gain_percentage: invested.sign() > 0 ? pct(percent(gain, invested)) : null,
      day_change: money(dayChange),
      day_change_percentage: dayChangePercentage(totalValue, dayChange),
      dividends: money(dividends),
      realised: money(realised),
      costs: money(costs),
      result: money(gain.plus(realised).plus(dividends).minus(costs)),
      positions_count: positions.filter((p) => p.open).length,
      closed_positions_count: positions.filter((p) => !p.open).length,
      unpriced_tickers: positions.filter((p) => p.open && p.price === null).map((p) => p.ticker),
    },
  };
}
