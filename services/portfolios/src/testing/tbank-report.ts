/**
 * A T-Bank broker report's sheet as its XLSX holds it, for tests: a title, the deals table "1.1" (header titles
 * wrapped and hyphenated inside cells, merged cells leaving empty ones between columns), the unexecuted deals
 * table "1.2" (not deals yet: never imported) and the cash table "2.". Layout after T-Bank's report (its help page
 * "Как читать брокерский отчет") and the open-source readers of it.
 */
export interface TbankDeal {
  date: string; // DD.MM.YYYY
  side: 'Покупка' | 'Продажа';
  ticker: string;
  price: number;
  quantity: number;
  commission: number;
  currency?: string;
}

type Cell = string | number | null;

const HEADER: Cell[] = [
  'Номер сделки', null, 'Номер поручения', null, 'Признак исполнения', 'Дата заклю-\nчения', 'Время', null,
  'Торговая площадка', 'Режим торгов', 'Вид сделки', null, 'Сокращен-\nное наименова-\nние', 'Код актива', null,
  'Цена за единицу', 'Валюта цены', 'Количество', null, 'Сумма (без НКД)', 'НКД', 'Сумма сделки',
  'Валюта расчетов', 'Комиссия брокера', 'Валюта комис-\nсии', 'Дата расчетов',
];

function dealRow(d: TbankDeal, i: number): Cell[] {
  const currency = d.currency ?? 'RUB';
  const sum = Math.round(d.price * d.quantity * 100) / 100;
  return [
    String(9310958000 + i), null, String(66813557000 + i), null, 'Исполнена', d.date, '10:15:03', null,
    'ММВБ', 'T+', d.side, null, d.ticker, d.ticker, null,
    d.price, currency, d.quantity, null, sum, 0, sum,
    currency, d.commission, currency, d.date,
  ];
}

export function tbankReportSheet(deals: TbankDeal[], unexecuted: TbankDeal[] = []): Cell[][] {
  const blank = HEADER.map(() => null);
  return [
    ['Отчет о сделках и операциях за период 01.01.2024 - 31.03.2024', ...blank.slice(1)],
    ['Инвестор: Иванов Иван Иванович', ...blank.slice(1)],
    blank,
    ['1.1 Информация о совершенных и исполненных сделках на конец отчетного периода', ...blank.slice(1)],
    HEADER,
    ...deals.map(dealRow),
    blank,
    ['1.2 Информация о неисполненных сделках на конец отчетного периода', ...blank.slice(1)],
    HEADER,
    ...unexecuted.map((d, i) => dealRow(d, 1000 + i)),
    ['2. Операции с денежными средствами', ...blank.slice(1)],
    ['Дата', null, 'Время совершения', 'Дата исполнения', 'Операция', 'Сумма зачисления', 'Сумма списания', ...blank.slice(7)],
    ['09.01.2024', null, '12:00:00', '09.01.2024', 'Пополнение счета', 10000, 0, ...blank.slice(7)],
  ];
}

/** The sheet as `;`-separated text, as the gateway passes a workbook on (and as a spreadsheet saves it). */
export function tbankReportCsv(deals: TbankDeal[], unexecuted: TbankDeal[] = []): string {
  const quote = (c: Cell) => {
    const text = c === null ? '' : String(c);
    return /[;"\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return tbankReportSheet(deals, unexecuted)
    .map((row) => row.map(quote).join(';'))
    .join('\r\n');
}
