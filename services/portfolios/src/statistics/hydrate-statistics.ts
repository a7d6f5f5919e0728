import type { PortfolioStatistics, StatisticsTotals, TickerStatistics } from '@invest/contracts';
import { currencySymbol } from './currency-symbol.js';
import { healthMetrics } from './health-metrics.js';
import { type AssetQuote, assetKey, type CashFlow, type PortfolioState } from './statistics.types.js';
import { xirr } from './xirr.js';

const round = (x: number, dp: number): number => {
  const r = Math.round(x * 10 ** dp) / 10 ** dp;
  return Object.is(r, -0) ? 0 : r;
};
/** Money and quantities: 8 decimal places (clears double-rounding dust, keeps crypto-sized prices). */
const money = (x: number) => round(x, 8);
/** Percentages and weights: 4 decimal places. */
const pct = (x: number) => round(x, 4);

export interface HydrateInput {
  state: PortfolioState;
  quotes: ReadonlyMap<string, AssetQuote>;
  currency: string;
  /** `YYYY-MM-DD`: the date the current value is placed on as the final XIRR flow. */
  valuationDate: string;
}

/**
 * HYDRATION: combines the price-independent state with current prices into the full statistics answer.
 * Formulas: docs/portfolio-statistics.md.
 */
export function hydrateStatistics({ state, quotes, currency, valuationDate }: HydrateInput): PortfolioStatistics {
  const rows = state.assets.map((agg) => {
    const quote = quotes.get(assetKey(agg.asset));
    const ticker = quote?.ticker ?? `${agg.asset.type}:${agg.asset.id}`;
    const price = quote?.currentRate ?? null;
    const open = agg.quantity > 0;
    const networth = !open ? 0 : price === null ? null : agg.quantity * price;
    const income = networth === null ? null : networth - agg.costBasis;
    const value = networth ?? agg.costBasis;
    const change24 = quote?.priceChangePercentage24h ?? null;
    return { agg, quote, ticker, price, networth, income, value, change24 };
  });
  const totalValue = rows.reduce((s, r) => s + r.value, 0);

  const tickers: TickerStatistics[] = rows
    .map(({ agg, quote, ticker, price, networth, income, value, change24 }) => ({
      ticker,
      title: quote?.name ?? ticker,
      type: agg.asset.type,
      symbol: currencySymbol(quote?.currency ?? null),
      assetable: { type: agg.asset.type, id: agg.asset.id },
      currency: quote?.currency ?? null,
      totalQuantity: money(agg.quantity),
      currentPrice: price,
      currentNetworth: networth === null ? null : money(networth),
      currentIncome: income === null ? null : money(income),
      spent: money(agg.costBasis),
      fixed: money(agg.fixed),
      accruals: money(agg.accruals),
      expenses: money(agg.expenses),
      commissions: money(agg.commissions),
      taxes: money(agg.taxes),
      averageWeightedPrice: money(agg.quantity > 0 ? agg.costBasis / agg.quantity : 0),
      price_change_percentage_24h: change24,
      totalIncome: money(agg.fixed + (income ?? 0) + agg.accruals - agg.expenses - agg.commissions - agg.taxes),
      weight: totalValue > 0 ? pct((100 * value) / totalValue) : 0,
      dealsCount: agg.dealsCount,
    }))
    .sort((a, b) => (b.currentNetworth ?? b.spent) - (a.currentNetworth ?? a.spent) || a.ticker.localeCompare(b.ticker));

  const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((s, r) => s + f(r), 0);
  const totalCurrentIncome = sum((r) => r.income ?? 0);
  const totalFixed = sum((r) => r.agg.fixed);
  const totalAccruals = sum((r) => r.agg.accruals);
  const totalExpenses = sum((r) => r.agg.expenses);
  const totalCommissions = sum((r) => r.agg.commissions);
  const totalTaxes = sum((r) => r.agg.taxes);
  const totalInvested = sum((r) => r.agg.invested);
  const totalIncome = totalCurrentIncome + totalFixed + totalAccruals - totalExpenses - totalCommissions - totalTaxes;
  // Value 24 h ago of a priced position = networth / (1 + p/100); positions without p count as unchanged.
  const change24h = sum((r) => (r.networth && r.change24 !== null && r.change24 > -100 ? r.networth - r.networth / (1 + r.change24 / 100) : 0));
  const before24h = totalValue - change24h;

  const flows: CashFlow[] = totalValue > 0 ? [...state.cashFlows, { date: valuationDate, amount: totalValue }] : [...state.cashFlows];
  const irr = xirr(flows);

  const totals: StatisticsTotals = {
    currency,
    totalSpent: money(sum((r) => r.agg.costBasis)),
    totalCurrentNetworth: money(totalValue),
    totalCurrentIncome: money(totalCurrentIncome),
    totalFixed: money(totalFixed),
    totalAccruals: money(totalAccruals),
    totalExpenses: money(totalExpenses),
    totalCommissions: money(totalCommissions),
    totalTaxes: money(totalTaxes),
    totalIncome: money(totalIncome),
    totalIncomePercentage: totalInvested > 0 ? pct((100 * totalIncome) / totalInvested) : null,
    totalInvested: money(totalInvested),
    change24h: money(change24h),
    changePercentage24h: before24h > 0 ? pct((100 * change24h) / before24h) : null,
    xirr: irr.rate === null ? null : round(irr.rate, 10),
    xirrError: irr.error,
    positionsCount: rows.filter((r) => r.agg.quantity > 0).length,
    closedPositionsCount: rows.filter((r) => r.agg.quantity <= 0).length,
    dealsCount: state.dealsCount,
    unpricedTickers: rows.filter((r) => r.agg.quantity > 0 && r.price === null).map((r) => r.ticker),
    valuationDate,
  };

  const health = healthMetrics(
    rows.filter((r) => r.agg.quantity > 0).map((r) => ({ ticker: r.ticker, title: r.quote?.name ?? r.ticker, type: r.agg.asset.type, value: r.value })),
  );
  return { tickers, totals, health };
}
