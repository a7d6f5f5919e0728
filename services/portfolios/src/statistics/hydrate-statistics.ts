import type { PortfolioStatistics, StatisticsTotals, TickerStatistics } from '@invest/contracts';
import { Decimal } from '@invest/platform/decimal/decimal';
import { currencySymbol } from './currency-symbol.js';
import { healthMetrics } from './health-metrics.js';
import { dayChangePercentage, money, pct, percent, positionFigures, round } from './position-figures.js';
import { type AssetQuote, assetKey, type PortfolioState } from './statistics.types.js';
import { xirr } from './xirr.js';

export interface HydrateInput {
  state: PortfolioState;
  quotes: ReadonlyMap<string, AssetQuote>;
  currency: string;
  /** `YYYY-MM-DD`: today (UTC). The valuation date is the later of this and the last deal's date. */
  today: string;
}

/**
 * The date the current value is placed on as the final XIRR flow: today, or the last deal's date when that is
 * later. Deals may be dated up to today anywhere on Earth (UTC+14), i.e. after today in UTC; a valuation before
 * a flow would make the flows run backwards in time and the rate absurd (a 3.4 % loss read as +29,304,786 %/year).
 */
export function valuationDateOf(state: PortfolioState, today: string): string {
  const last = state.cashFlows.at(-1)?.date;
  return last !== undefined && last > today ? last : today;
}

/**
 * HYDRATION: combines the price-independent state with current prices into the full statistics answer.
 * Money is computed in exact decimals; only ratios (weights, percentages, XIRR) are doubles.
 * Formulas: docs/portfolio-statistics.md.
 */
export function hydrateStatistics({ state, quotes, currency, today }: HydrateInput): PortfolioStatistics {
  const valuationDate = valuationDateOf(state, today);
  const rows = state.assets.map((agg) => {
    const quote = quotes.get(assetKey(agg.asset));
    const ticker = quote?.ticker ?? `${agg.asset.type}:${agg.asset.id}`;
    return { agg, quote, ticker, ...positionFigures(agg, quote) };
  });
  const sum = (f: (r: (typeof rows)[number]) => Decimal) => Decimal.sum(rows.map(f));
  const totalValue = sum((r) => r.value);

  const tickers = rows
    .map(({ agg, quote, ticker, price, networth, income, value, change24 }) => ({
      sortValue: networth ?? agg.costBasis,
      row: {
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
        averageWeightedPrice: money(agg.quantity.sign() > 0 ? agg.costBasis.div(agg.quantity) : Decimal.ZERO),
        price_change_percentage_24h: change24,
        totalIncome: money(agg.fixed.plus(income ?? Decimal.ZERO).plus(agg.accruals).minus(agg.expenses).minus(agg.commissions).minus(agg.taxes)),
        weight: totalValue.sign() > 0 ? pct(percent(value, totalValue)) : 0,
        dealsCount: agg.dealsCount,
      } satisfies TickerStatistics,
    }))
    .sort((a, b) => b.sortValue.cmp(a.sortValue) || a.row.ticker.localeCompare(b.row.ticker))
    .map((t) => t.row);

  const totalCurrentIncome = sum((r) => r.income ?? Decimal.ZERO);
  const totalFixed = sum((r) => r.agg.fixed);
  const totalAccruals = sum((r) => r.agg.accruals);
  const totalExpenses = sum((r) => r.agg.expenses);
  const totalCommissions = sum((r) => r.agg.commissions);
  const totalTaxes = sum((r) => r.agg.taxes);
  const totalInvested = sum((r) => r.agg.invested);
  const totalIncome = totalCurrentIncome.plus(totalFixed).plus(totalAccruals).minus(totalExpenses).minus(totalCommissions).minus(totalTaxes);
  // Positions without a 24 h change count as unchanged.
  const change24h = sum((r) => r.dayChange ?? Decimal.ZERO);

  const flows = state.cashFlows.map((f) => ({ date: f.date, amount: f.amount.toNumber() }));
  if (totalValue.sign() > 0) flows.push({ date: valuationDate, amount: totalValue.toNumber() });
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
    totalIncomePercentage: totalInvested.sign() > 0 ? pct(percent(totalIncome, totalInvested)) : null,
    totalInvested: money(totalInvested),
    change24h: money(change24h),
    changePercentage24h: dayChangePercentage(totalValue, change24h),
    xirr: irr.rate === null ? null : round(irr.rate, 10),
    xirrError: irr.error,
    positionsCount: rows.filter((r) => r.open).length,
    closedPositionsCount: rows.filter((r) => !r.open).length,
    dealsCount: state.dealsCount,
    unpricedTickers: rows.filter((r) => r.open && r.price === null).map((r) => r.ticker),
    valuationDate,
  };

  const health = healthMetrics(
    rows.filter((r) => r.open).map((r) => ({ ticker: r.ticker, title: r.quote?.name ?? r.ticker, type: r.agg.asset.type, value: r.value })),
  );
  return { tickers, totals, health };
}
