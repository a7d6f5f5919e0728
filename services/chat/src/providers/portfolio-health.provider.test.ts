import { portfolioFigureLines, type PortfolioStatistics, portfolioStatisticsSchema, type TickerStatistics, tickerStatisticsSchema } from '@invest/contracts';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { describe, expect, it } from 'vitest';
import { OFFLINE_NOTICE, OFFLINE_NOTICE_RU } from './context-provider.js';
import { ContextProviders } from './context-providers.js';
import { RUSSIAN_MARKET_CONTEXT, marketContextFor } from './market-context.js';
import { buildPortfolioHealthPrompt, PROMPT_TICKER_FIELDS, portfolioHealthOfflineAnswer, portfolioHealthProvider } from './portfolio-health.provider.js';
import { buildSupportPrompt, supportProvider } from './support.provider.js';

// Parsed by the contract, so money fields are exact decimal text as the portfolios service sends them.
const ticker: TickerStatistics = tickerStatisticsSchema.parse({
  ticker: 'SBER',
  title: 'Sberbank',
  type: 'share',
  symbol: '₽',
  assetable: { type: 'share', id: 7 },
  currency: 'RUB',
  totalQuantity: 10,
  currentPrice: 280,
  currentNetworth: 2800,
  currentIncome: 300,
  spent: 2500,
  fixed: 0,
  accruals: 50,
  expenses: 0,
  commissions: 5,
  taxes: 6.5,
  averageWeightedPrice: 250,
  price_change_percentage_24h: 1.5,
  totalIncome: 338.5,
  weight: 100,
  dealsCount: 3,
});

function statistics(currency: string): PortfolioStatistics {
  return portfolioStatisticsSchema.parse({
    tickers: [ticker],
    totals: {
      currency,
      totalSpent: 2500,
      totalCurrentNetworth: 2800,
      totalCurrentIncome: 300,
      totalFixed: 0,
      totalAccruals: 50,
      totalExpenses: 0,
      totalCommissions: 5,
      totalTaxes: 6.5,
      totalIncome: 338.5,
      totalIncomePercentage: 13.54,
      totalInvested: 2500,
      change24h: 41.4,
      changePercentage24h: 1.5,
      xirr: 0.1234,
      xirrError: null,
      positionsCount: 1,
      closedPositionsCount: 0,
      dealsCount: 3,
      unpricedTickers: [],
      valuationDate: '2025-01-01',
    },
    health: {
      diversificationScore: 0,
      concentrationScore: 100,
      herfindahlIndex: 1,
      effectivePositions: 1,
      largestPositionWeight: 100,
      assetClasses: [{ type: 'share', value: 2800, weight: 100, positionsCount: 1 }],
      topPositions: [{ ticker: 'SBER', title: 'Sberbank', type: 'share', value: 2800, weight: 100 }],
    },
  });
}

const line = (prompt: string, label: string) => JSON.parse(prompt.split('\n').find((l) => l.startsWith(label))!.slice(label.length));

describe('portfolio_health prompt', () => {
  const client = { volatility: 0.18, max_drawdown: -0.25 };

  it('holds each ticker with exactly the spec fields (not assetable, weight, dealsCount, totalIncome, currency)', () => {
    const prompt = buildPortfolioHealthPrompt({ loaded: { statistics: statistics('RUB') }, clientData: client });
    const [p] = line(prompt, 'Positions (JSON): ');
    expect(Object.keys(p)).toEqual([...PROMPT_TICKER_FIELDS]);
    expect(p).toEqual(Object.fromEntries(PROMPT_TICKER_FIELDS.map((f) => [f, ticker[f]])));
  });

  it('holds the totals and the health metrics with the client volatility and max drawdown merged in', () => {
    const prompt = buildPortfolioHealthPrompt({ loaded: { statistics: statistics('RUB') }, clientData: client });
    expect(line(prompt, 'Portfolio totals (JSON): ')).toMatchObject({ totalSpent: '2500', totalIncome: '338.5', totalCurrentNetworth: '2800', xirr: 0.1234 });
    expect(line(prompt, 'Health metrics (JSON; volatility and max_drawdown are computed by the client app): ')).toMatchObject({
      diversificationScore: 0,
      concentrationScore: 100,
      assetClasses: [{ type: 'share' }],
      topPositions: [{ ticker: 'SBER' }],
      volatility: 0.18,
      max_drawdown: -0.25,
    });
    expect(prompt).toContain('You do not give individual investment advice');
  });

  it('defines each figure as the app does and leaves out the gross purchases the app does not show', () => {
    const prompt = buildPortfolioHealthPrompt({ loaded: { statistics: statistics('RUB') }, clientData: client });
    for (const line of portfolioFigureLines()) expect(prompt).toContain(`- ${line}`);
    expect(prompt).toContain('Invested: what the open positions cost, quantity x average price; units already sold and commissions are not in it. (total totalSpent, per position spent)');
    expect(line(prompt, 'Portfolio totals (JSON): ')).not.toHaveProperty('totalInvested');
    expect(line(prompt, 'Portfolio totals (JSON): ')).not.toHaveProperty('totalIncomePercentage');
  });

  it('adds the Russian market context for RUB portfolios and none for USD', () => {
    expect(buildPortfolioHealthPrompt({ loaded: { statistics: statistics('RUB') }, clientData: client })).toContain(`Market context: ${RUSSIAN_MARKET_CONTEXT}`);
    const usd = buildPortfolioHealthPrompt({ loaded: { statistics: statistics('USD') }, clientData: client });
    expect(usd).not.toContain('Market context');
    expect(marketContextFor('USD')).toBe('');
    expect(marketContextFor('rub')).toBe(RUSSIAN_MARKET_CONTEXT);
    for (const topic of ['sanctions', '2022', 'OFZ', 'key rate', 'tax']) expect(RUSSIAN_MARKET_CONTEXT).toContain(topic);
  });

  it('validates the client data: numbers only, bounded; other keys are ignored', () => {
    expect(portfolioHealthProvider.parseClientData({ volatility: 0.2, xirr: 'whatever' })).toEqual({ volatility: 0.2, max_drawdown: null });
    const bad = (d: Record<string, unknown>) => {
      try {
        portfolioHealthProvider.parseClientData(d);
        return undefined;
      } catch (err) {
        return (err as ServiceError).errors;
      }
    };
    expect(bad({ volatility: '0.2' })).toHaveProperty(['context_data.volatility']);
    expect(bad({ max_drawdown: 1e9 })).toHaveProperty(['context_data.max_drawdown']);
  });

  it('offline answer: says it is offline and uses the real figures', () => {
    const text = portfolioHealthOfflineAnswer({ loaded: { statistics: statistics('RUB') }, clientData: client, question: 'How is my portfolio?' });
    expect(text.startsWith(OFFLINE_NOTICE)).toBe(true);
    for (const figure of ['worth 2800 RUB', 'invested 2500 RUB', 'gain of 300 RUB', 'realised 0 RUB', 'dividends 50 RUB', 'total result 338.5 RUB', '12.34% a year', 'SBER 100%', 'Volatility: 0.18', 'max drawdown: -0.25']) {
      expect(text).toContain(figure);
    }
    expect(text).not.toContain('spent');
    expect(text).not.toMatch(/\p{Script=Cyrillic}/u);
  });

  it('offline answer: a Russian question gets the same figures in Russian', () => {
    const text = portfolioHealthOfflineAnswer({ loaded: { statistics: statistics('RUB') }, clientData: client, question: 'Как здоровье моего портфеля?' });
    expect(text.startsWith(OFFLINE_NOTICE_RU)).toBe(true);
    for (const figure of ['стоит 2800 RUB', 'вложено 2500 RUB', 'прирост 300 RUB', 'зафиксировано 0 RUB', 'дивиденды 50 RUB', 'итоговый результат 338.5 RUB', '12.34% годовых', 'SBER 100%', 'Волатильность: 0.18', 'просадка: -0.25']) {
      expect(text).toContain(figure);
    }
    expect(text).not.toMatch(/worth|invested|Volatility/);
  });

  it('offline answer: a position the question names by ticker gets its own line, in either language', () => {
    const ru = portfolioHealthOfflineAnswer({ loaded: { statistics: statistics('RUB') }, clientData: client, question: 'Что с sber?' });
    expect(ru).toMatch(/SBER \(.+\): 10 шт\., стоимость 2800 RUB, прирост 300 RUB, доля 100%/);
    const en = portfolioHealthOfflineAnswer({ loaded: { statistics: statistics('RUB') }, clientData: client, question: 'What about SBER?' });
    expect(en).toMatch(/SBER \(.+\): 10 units worth 2800 RUB, a gain of 300 RUB, 100% of the portfolio/);
    expect(portfolioHealthOfflineAnswer({ loaded: { statistics: statistics('RUB') }, clientData: client, question: 'What about GAZP?' })).not.toContain('units worth');
  });
});

describe('registry', () => {
  it('knows portfolio_health and support, refuses others with a 422 on context_type, and applies model overrides', () => {
    const r = new ContextProviders(undefined, { support: 'support-model', '*': 'default-model' });
    expect(r.all().map((p) => p.type)).toEqual(['portfolio_health', 'support']);
    expect(() => r.require('horoscope')).toThrow(ServiceError);
    expect(r.modelFor(r.require('support'))).toBe('support-model');
    expect(r.modelFor(r.require('portfolio_health'))).toBe('default-model');
    expect(new ContextProviders().modelFor(r.require('support'))).toBe('gpt-4o-mini');
  });

  it('support prompt describes the product functions', () => {
    const prompt = buildSupportPrompt();
    for (const f of ['screener', 'Alerts', 'Subscriptions', 'AI chat']) expect(prompt).toContain(f);
  });

  it('with a model, both prompts ask for the language of the question', () => {
    expect(buildSupportPrompt()).toContain("Answer in the language of the user's question.");
    expect(buildPortfolioHealthPrompt({ loaded: { statistics: statistics('RUB') }, clientData: { volatility: null, max_drawdown: null } })).toContain("Answer in the language of the user's question.");
  });

  it('support offline answer: in the language of the question', () => {
    const ask = (question: string) => supportProvider.offlineAnswer({ chat: { id: 'c', userId: 'u', contextType: 'support', contextId: null }, loaded: null, clientData: {}, question });
    expect(ask('Как настроить уведомления?')).toMatch(/^ИИ-ассистент не подключён.*«Как настроить уведомления\?».*Скринер акций/);
    expect(ask('How do I set up alerts?')).toMatch(/^The AI assistant is offline.*"How do I set up alerts\?".*Share screener/);
  });
});
