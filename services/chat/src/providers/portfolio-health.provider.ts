import {
  ErrorCode,
  type GetStatisticsReply,
  portfolioFigureLines,
  type PortfolioReply,
  type PortfolioStatistics,
  Subjects,
  type TickerStatistics,
} from '@invest/contracts';
import { parseOrThrow, ServiceError } from '@invest/platform/rpc/service-error';
import { z } from 'zod';
import { type ChatRef, type ContextProvider, offlineNotice } from './context-provider.js';
import { marketContextFor } from './market-context.js';
import { questionLanguage } from './question-language.js';

/** The spec's ticker fields, exactly: nothing else of a ticker reaches the model. */
export const PROMPT_TICKER_FIELDS = [
  'ticker',
  'title',
  'type',
  'symbol',
  'totalQuantity',
  'currentPrice',
  'currentNetworth',
  'currentIncome',
  'spent',
  'fixed',
  'accruals',
  'expenses',
  'commissions',
  'taxes',
  'averageWeightedPrice',
  'price_change_percentage_24h',
] as const satisfies readonly (keyof TickerStatistics)[];
export type PromptTicker = Pick<TickerStatistics, (typeof PROMPT_TICKER_FIELDS)[number]>;

export function filterTicker(t: TickerStatistics): PromptTicker {
  return Object.fromEntries(PROMPT_TICKER_FIELDS.map((f) => [f, t[f]])) as PromptTicker;
}

const metric = (label: string) =>
  z
    .number({ error: `The ${label} must be a number.` })
    .refine(Number.isFinite, `The ${label} must be a number.`)
    .refine((n) => Math.abs(n) <= 1e6, `The ${label} is out of range.`)
    .nullish();

/**
 * The client's metrics (computed on the device from price history the server does not keep). Only
 * volatility and max_drawdown enter the prompt; the scores and XIRR are the server's own (statistics).
 */
export const portfolioHealthClientDataSchema = z
  .object({
    volatility: metric('volatility'),
    max_drawdown: metric('max drawdown'),
  })
  .passthrough();
export interface PortfolioHealthClientData {
  volatility: number | null;
  max_drawdown: number | null;
}

export interface PortfolioHealthLoaded {
  statistics: PortfolioStatistics;
}

/** For the offline text: money (exact decimal text) and ratios rounded for reading. */
const num = (v: number | string | null | undefined, digits = 2) => (v === null || v === undefined ? 'n/a' : Number(Number(v).toFixed(digits)).toString());

/**
 * Totals for the prompt: the money totals, XIRR and counts (no internal fields such as the valuation date). Not the
 * gross purchases over the portfolio's life (`totalInvested`) nor the total result in percent of them: the app
 * shows neither, and "invested" is the cost of the open positions (`totalSpent`) in the app and here alike.
 */
export function promptTotals(s: PortfolioStatistics) {
  const t = s.totals;
  return {
    currency: t.currency,
    totalSpent: t.totalSpent,
    totalIncome: t.totalIncome,
    totalCurrentNetworth: t.totalCurrentNetworth,
    totalCurrentIncome: t.totalCurrentIncome,
    totalFixed: t.totalFixed,
    totalAccruals: t.totalAccruals,
    totalExpenses: t.totalExpenses,
    totalCommissions: t.totalCommissions,
    totalTaxes: t.totalTaxes,
    change24h: t.change24h,
    changePercentage24h: t.changePercentage24h,
    xirr: t.xirr,
    positionsCount: t.positionsCount,
    closedPositionsCount: t.closedPositionsCount,
  };
}

/** Health metrics from the statistics, with the client's volatility and max drawdown merged in. */
export function promptHealth(s: PortfolioStatistics, client: PortfolioHealthClientData) {
  const h = s.health;
  return {
    diversificationScore: h.diversificationScore,
    concentrationScore: h.concentrationScore,
    effectivePositions: h.effectivePositions,
    largestPositionWeight: h.largestPositionWeight,
    assetClasses: h.assetClasses,
    topPositions: h.topPositions,
    volatility: client.volatility,
    max_drawdown: client.max_drawdown,
  };
}

/** Pure: the system prompt of a portfolio_health chat. */
export function buildPortfolioHealthPrompt(input: { loaded: PortfolioHealthLoaded; clientData: PortfolioHealthClientData }): string {
  const s = input.loaded.statistics;
  const market = marketContextFor(s.totals.currency);
  return [
    'You are the portfolio health assistant of an investment tracking app. You explain and describe the user\'s',
    'portfolio: its structure, diversification, concentration, risk and returns, using the data below.',
    'You do not give individual investment advice: never tell the user to buy, sell or hold a particular',
    'security, and say so when asked; describe facts, trade-offs and general principles instead.',
    'Answer in the language of the user\'s question. Amounts are in the portfolio currency.',
    'The app shows these figures under these names; call them so and never by another meaning (e.g. do not call',
    'invested "spent" or count sold units in it), so that what you say matches the screen:',
    ...portfolioFigureLines().map((l) => `- ${l}`),
    '',
    `Portfolio totals (JSON): ${JSON.stringify(promptTotals(s))}`,
    `Health metrics (JSON; volatility and max_drawdown are computed by the client app): ${JSON.stringify(promptHealth(s, input.clientData))}`,
    `Positions (JSON): ${JSON.stringify(s.tickers.map(filterTicker))}`,
    ...(market ? ['', `Market context: ${market}`] : []),
  ].join('\n');
}

/** The open positions a question names by ticker (case-insensitive, whole words), at most three. */
function namedPositions(s: PortfolioStatistics, question: string): TickerStatistics[] {
  const words = new Set(question.toUpperCase().split(/[^\p{L}\p{N}.]+/u));
  return s.tickers.filter((t) => words.has(t.ticker.toUpperCase())).slice(0, 3);
}

/**
 * Pure: the offline responder's answer, from the real figures, in the question's language (ru or en, by its
 * letters); a position the question names by ticker gets its own line.
 */
export function portfolioHealthOfflineAnswer(input: { loaded: PortfolioHealthLoaded; clientData: PortfolioHealthClientData; question?: string }): string {
  const s = input.loaded.statistics;
  const t = s.totals;
  const h = s.health;
  const c = t.currency;
  const question = input.question ?? '';
  const top = h.topPositions
    .slice(0, 3)
    .map((p) => `${p.ticker} ${num(p.weight, 1)}%`)
    .join(', ');
  const named = namedPositions(s, question);
  const xirr = t.xirr === null ? 'n/a' : `${num(t.xirr * 100)}%`;
  // The app's figures under the app's names (PORTFOLIO_FIGURES): value - invested = gain.
  if (questionLanguage(question) === 'ru') {
    return [
      offlineNotice('ru'),
      `Портфель стоит ${num(t.totalCurrentNetworth)} ${c}, открытых позиций: ${t.positionsCount}; вложено ${num(t.totalSpent)} ${c} (стоимость покупки открытых позиций), прирост ${num(t.totalCurrentIncome)} ${c};`,
      `зафиксировано ${num(t.totalFixed)} ${c}, дивиденды ${num(t.totalAccruals)} ${c}, итоговый результат ${num(t.totalIncome)} ${c}.`,
      `XIRR: ${t.xirr === null ? 'н/д' : `${xirr} годовых`}. Диверсификация: ${num(h.diversificationScore, 0)}/100, концентрация: ${num(h.concentrationScore, 0)}/100.`,
      top ? `Крупнейшие позиции: ${top}.` : 'Открытых позиций нет.',
      ...named.map((p) => `${p.ticker} (${p.title}): ${num(p.totalQuantity, 4)} шт., стоимость ${num(p.currentNetworth)} ${c}, прирост ${num(p.currentIncome)} ${c}, доля ${num(p.weight, 1)}%.`),
      `Волатильность: ${input.clientData.volatility === null ? 'н/д' : num(input.clientData.volatility)}, максимальная просадка: ${input.clientData.max_drawdown === null ? 'н/д' : num(input.clientData.max_drawdown)}.`,
    ].join(' ');
  }
  return [
    offlineNotice('en'),
    `Your portfolio is worth ${num(t.totalCurrentNetworth)} ${c} across ${t.positionsCount} open positions, invested ${num(t.totalSpent)} ${c} (what the open positions cost), a gain of ${num(t.totalCurrentIncome)} ${c};`,
    `realised ${num(t.totalFixed)} ${c}, dividends ${num(t.totalAccruals)} ${c}, total result ${num(t.totalIncome)} ${c}.`,
    `XIRR: ${t.xirr === null ? 'n/a' : `${xirr} a year`}. Diversification score: ${num(h.diversificationScore, 0)}/100, concentration score: ${num(h.concentrationScore, 0)}/100.`,
    top ? `Largest positions: ${top}.` : 'There are no open positions.',
    ...named.map((p) => `${p.ticker} (${p.title}): ${num(p.totalQuantity, 4)} units worth ${num(p.currentNetworth)} ${c}, a gain of ${num(p.currentIncome)} ${c}, ${num(p.weight, 1)}% of the portfolio.`),
    `Volatility: ${num(input.clientData.volatility)}, max drawdown: ${num(input.clientData.max_drawdown)}.`,
  ].join(' ');
}

/** portfolio_health: a chat about one of the user's portfolios, grounded in its statistics. */
export const portfolioHealthProvider: ContextProvider<PortfolioHealthLoaded, PortfolioHealthClientData> = {
  type: 'portfolio_health',
  model: 'gpt-4o-mini',
  freeLimit: 5,
  limitPeriod: 'day',
  async openChat({ userId, contextId }, { rpc }) {
    const invalid = () => ServiceError.validation({ context_id: ['The selected context id is invalid.'] });
    if (contextId === null || contextId === undefined || contextId === '') throw ServiceError.validation({ context_id: ['The context id field is required for portfolio_health.'] });
    if (!/^\d{1,15}$/.test(contextId)) throw invalid();
    try {
      const reply = await rpc.request<PortfolioReply>(Subjects.portfolios.portfoliosGet, { id: contextId }, { userId });
      return String(reply.data.id);
    } catch (err) {
      // Another user's portfolio looks exactly like one that does not exist.
      if (err instanceof ServiceError && (err.code === ErrorCode.NotFound || err.code === ErrorCode.Validation)) throw invalid();
      throw err;
    }
  },
  parseClientData(contextData) {
    const d = parseOrThrow(z.object({ context_data: portfolioHealthClientDataSchema }), { context_data: contextData }).context_data;
    return { volatility: d.volatility ?? null, max_drawdown: d.max_drawdown ?? null };
  },
  async load(chat: ChatRef, { rpc }) {
    // The portfolios service answers with its hydrated → state → computed cache priority.
    const reply = await rpc.request<GetStatisticsReply>(Subjects.portfolios.statisticsGet, { portfolio_id: chat.contextId }, { userId: chat.userId, timeoutMs: 15_000 });
    return { statistics: reply.data };
  },
  buildSystemPrompt: buildPortfolioHealthPrompt,
  offlineAnswer: portfolioHealthOfflineAnswer,
};
