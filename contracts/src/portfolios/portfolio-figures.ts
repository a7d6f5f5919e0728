/**
 * The one definition of each portfolio figure, in the words the API, the chat prompt and the documentation
 * (docs/portfolio-statistics.md, "Holdings") use. The web client shows the same definitions as tooltips, in
 * Russian and English. Keyed by the holdings field; `statistics` names the statistics total and `ticker` the
 * statistics ticker field that hold the same number, where there is one.
 */
export const PORTFOLIO_FIGURES = {
  quantity: { statistics: null, ticker: 'totalQuantity', text: 'Quantity: units held now (bought minus sold).' },
  average_price: {
    statistics: null,
    ticker: 'averageWeightedPrice',
    text: 'Average price: what the units held cost per unit, weighted by quantity; a sale leaves it unchanged; commissions are not in it.',
  },
  current_price: { statistics: null, ticker: 'currentPrice', text: 'Current price: the latest market rate of one unit.' },
  value: {
    statistics: 'totalCurrentNetworth',
    ticker: 'currentNetworth',
    text: 'Value: what the open positions are worth now, quantity x current price; a position without a known price counts at its cost (invested).',
  },
  invested: {
    statistics: 'totalSpent',
    ticker: 'spent',
    text: 'Invested: what the open positions cost, quantity x average price; units already sold and commissions are not in it.',
  },
  gain: {
    statistics: 'totalCurrentIncome',
    ticker: 'currentIncome',
    text: 'Gain: value minus invested, the result of the open positions not yet realised (0 for a position without a price); in percent of invested.',
  },
  day_change: {
    statistics: 'change24h',
    ticker: null,
    text: "Day change: how much the value changed over 24 hours, from each asset's 24-hour price change.",
  },
  weight: { statistics: null, ticker: 'weight', text: "Weight: the position's share of the portfolio's value, percent." },
  dividends: { statistics: 'totalAccruals', ticker: 'accruals', text: 'Dividends: dividends and coupons received (quantity x payout), before tax.' },
  realised: {
    statistics: 'totalFixed',
    ticker: 'fixed',
    text: 'Realised: the result of sales, quantity sold x (sale price minus the average price at the sale).',
  },
  costs: {
    statistics: null,
    ticker: null,
    text: 'Costs: fees, commissions and taxes paid (statistics: totalExpenses + totalCommissions + totalTaxes).',
  },
  result: {
    statistics: 'totalIncome',
    ticker: 'totalIncome',
    text: 'Total result: gain + realised + dividends minus costs, everything the portfolio has earned or lost.',
  },
} as const;
export type PortfolioFigure = keyof typeof PORTFOLIO_FIGURES;

/** The definitions as lines naming the statistics fields that carry each figure: for the API description and the chat prompt. */
export function portfolioFigureLines(): string[] {
  return Object.values(PORTFOLIO_FIGURES).map((f) => {
    const fields = [f.statistics && `total ${f.statistics}`, f.ticker && `per position ${f.ticker}`].filter(Boolean).join(', ');
    return fields ? `${f.text} (${fields})` : f.text;
  });
}
