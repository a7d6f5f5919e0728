/**
 * What each portfolio figure counts, in Russian and English: the tooltips of the portfolio screens. The same
 * definitions as the API and the chat prompt (PORTFOLIO_FIGURES in contracts, docs/portfolio-statistics.md
 * "Holdings and the figures shown everywhere").
 */
export const FIGURE_HINTS = {
  quantity: ['Сколько бумаг в портфеле сейчас: куплено минус продано.', 'Units held now: bought minus sold.'],
  average_price: [
    'Средняя цена покупки бумаг, которые в портфеле, взвешенная по количеству. Продажа её не меняет; комиссии в неё не входят.',
    'Average purchase price of the units held, weighted by quantity. A sale leaves it unchanged; commissions are not in it.',
  ],
  current_price: ['Последняя рыночная цена одной бумаги.', 'The latest market price of one unit.'],
  value: [
    'Сколько стоят открытые позиции сейчас: количество × текущая цена. Позиция без известной цены считается по стоимости покупки.',
    'What the open positions are worth now: quantity × current price. A position without a known price counts at its cost.',
  ],
  invested: [
    'Сколько стоили открытые позиции: количество × средняя цена покупки. Проданные бумаги и комиссии сюда не входят.',
    'What the open positions cost: quantity × average price. Units already sold and commissions are not in it.',
  ],
  gain: [
    'Стоимость минус вложено: ещё не зафиксированный результат открытых позиций; процент — от вложенного.',
    'Value minus invested: the result of the open positions not yet realised; the percentage is of invested.',
  ],
  day_change: [
    'Как изменилась стоимость за 24 часа, по суточному изменению цены каждого актива.',
    "How the value changed over 24 hours, from each asset's 24-hour price change.",
  ],
  weight: ['Доля позиции в стоимости портфеля.', "The position's share of the portfolio's value."],
  dividends: [
    'Полученные дивиденды и купоны (количество × выплата на бумагу), до налога.',
    'Dividends and coupons received (quantity × payout per unit), before tax.',
  ],
  realised: [
    'Результат продаж: проданное количество × (цена продажи − средняя цена на момент продажи).',
    'The result of sales: quantity sold × (sale price − average price at the sale).',
  ],
  result: [
    'Прибыль + реализовано + дивиденды − комиссии, сборы и налоги: всё, что портфель заработал или потерял.',
    'Gain + realised + dividends − commissions, fees and taxes: everything the portfolio has earned or lost.',
  ],
  xirr: [
    'Годовая доходность с учётом сумм и дат всех покупок, продаж и выплат (как функция XIRR в таблицах).',
    'Annual return over the amounts and dates of every buy, sale and payout (as spreadsheet XIRR).',
  ],
  diversification: [
    'От 0 до 100: насколько стоимость распределена между бумагами и классами активов.',
    'From 0 to 100: how evenly the value is spread over assets and asset classes.',
  ],
  concentration: ['От 0 до 100: 100 — всё в одной бумаге.', 'From 0 to 100: 100 means everything in one asset.'],
  effective_positions: [
    'Сколько одинаковых позиций дали бы такую же концентрацию.',
    'How many equal positions would give the same concentration.',
  ],
  largest_position: ['Доля крупнейшей позиции в стоимости портфеля.', "The largest position's share of the value."],
} as const satisfies Record<string, readonly [ru: string, en: string]>;
export type FigureHint = keyof typeof FIGURE_HINTS;
