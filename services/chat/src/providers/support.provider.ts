import { ServiceError } from '@invest/platform/rpc/service-error';
import { type ContextProvider, offlineNotice } from './context-provider.js';
import { questionLanguage } from './question-language.js';

/** What the product does, for the support assistant. Kept short: the model sees it on every message. */
export const PRODUCT_HELP = [
  'Share screener: browse shares without signing in, sort by price change over 24 hours or 7 days, dividend yield,',
  'market capitalisation or trading volume, filter by category and country, search by ticker, name or ISIN.',
  'Portfolios and watchlists: record deals (buys, sells, dividends, commissions, taxes); statistics show value,',
  'income, XIRR and diversification.',
  'Alerts (notifications): a price-target alert fires once when an asset reaches a price; a price-change alert',
  'fires on daily moves over a threshold (1, 2, 3, 5 or 10 %) with a cooldown, for an asset, a portfolio or a watchlist.',
  'Subscriptions: the free plan has a few active alerts and a daily number of AI chat messages; paid plans basic-m',
  '(monthly) and basic-y (yearly) remove those limits; payment goes through CloudPayments and the app confirms it;',
  'the subscription screen synchronises the status.',
  'AI chat: a portfolio health chat explains a portfolio; the support chat answers questions about the app; answers',
  'stream live, can be stopped, rated (like or dislike) and resumed after a lost connection; free daily limits reset',
  'at midnight Moscow time.',
].join(' ');

/** PRODUCT_HELP in Russian, for the offline responder's Russian answers (the model reads the English one). */
export const PRODUCT_HELP_RU = [
  'Скринер акций: список акций без входа в систему, сортировка по изменению цены за 24 часа или 7 дней, дивидендной',
  'доходности, капитализации или объёму торгов, фильтры по категории и стране, поиск по тикеру, названию или ISIN.',
  'Портфели и списки наблюдения: сделки (покупки, продажи, дивиденды, комиссии, налоги); статистика показывает',
  'стоимость, доход, XIRR и диверсификацию.',
  'Уведомления: по целевой цене срабатывает один раз, когда актив достигает цены; по изменению цены — при дневном',
  'движении больше порога (1, 2, 3, 5 или 10 %) с паузой, для актива, портфеля или списка наблюдения.',
  'Подписки: на бесплатном тарифе несколько активных уведомлений и дневное число сообщений ИИ-чату; платные тарифы',
  'basic-m (месяц) и basic-y (год) снимают эти ограничения; оплата идёт через CloudPayments, приложение её подтверждает;',
  'экран подписки синхронизирует статус.',
  'ИИ-чат: чат о здоровье портфеля объясняет портфель; чат поддержки отвечает на вопросы о приложении; ответы',
  'приходят по мере написания, их можно остановить, оценить и продолжить после обрыва связи; бесплатные дневные',
  'лимиты обновляются в полночь по Москве.',
].join(' ');

export function buildSupportPrompt(): string {
  return [
    'You are the support assistant of an investment tracking app. Help users use the app: explain its functions',
    'and how to do things step by step. If you do not know, say so and suggest contacting support. Do not give',
    'investment advice. Answer in the language of the user\'s question.',
    '',
    `What the app does: ${PRODUCT_HELP}`,
  ].join('\n');
}

/** support: product help; needs no context id. */
export const supportProvider: ContextProvider<null, Record<string, never>> = {
  type: 'support',
  model: 'gpt-4o-mini',
  freeLimit: 10,
  limitPeriod: 'day',
  openChat({ contextId }) {
    if (contextId !== null && contextId !== undefined && contextId !== '') {
      return Promise.reject(ServiceError.validation({ context_id: ['The context id must be empty for support.'] }));
    }
    return Promise.resolve(null);
  },
  parseClientData: () => ({}),
  load: () => Promise.resolve(null),
  buildSystemPrompt: () => buildSupportPrompt(),
  offlineAnswer: ({ question }) =>
    questionLanguage(question) === 'ru'
      ? `${offlineNotice('ru')} Ваш вопрос: «${question.slice(0, 200)}». Вот что умеет приложение. ${PRODUCT_HELP_RU}`
      : `${offlineNotice('en')} You asked: "${question.slice(0, 200)}". Here is what the app does. ${PRODUCT_HELP}`,
};
