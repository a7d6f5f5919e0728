import type { CsvColumn } from './deal-csv.parser.js';

/**
 * T-Bank's broker report ("Отчет о сделках и операциях", XLSX; the gateway turns its sheet into `;`-separated
 * text, and a copy saved as CSV from a spreadsheet reads the same). Its deals are the table titled
 * "1.1 Информация о совершенных и исполненных сделках на конец отчетного периода": a header row, then one deal a
 * row, up to the next numbered table. The columns are found by the words of their titles, as T-Bank's help page
 * ("Как читать брокерский отчет") names them and as open-source readers of the report (Investbook) match them:
 * the titles wrap and hyphenate inside cells ("Дата заклю-чения"), and merged cells put empty ones between columns.
 */

const TITLE = '1.1 информация о совершенных и исполненных сделках';
/** A numbered table title ("1.2 Информация о неисполненных сделках…", "2. Операции…") ends the deals table. */
const NEXT_TABLE = /^\d+(\.\d+)*\.?\s+\S/;

/** Words every wanted column's title holds (after `normaliseTitle`), and words it must not hold. */
const COLUMN_WORDS: [CsvColumn, string[], string[]][] = [
  ['date', ['дата', 'заключения'], []],
  ['type', ['вид', 'сделки'], []],
  ['ticker', ['код', 'актива'], []],
  ['price', ['цена', 'за единицу'], []],
  ['quantity', ['количество'], []],
  ['commission', ['комиссия', 'брокера'], ['валюта']],
  ['currency', ['валюта', 'расчетов'], []],
];
const REQUIRED: CsvColumn[] = ['date', 'type', 'ticker', 'price', 'quantity'];

/** Lower case, `ё` as `е`, a word hyphenated across lines (`заклю-\nчения`, or `заклю- чения` once flattened) joined, spaces collapsed. */
function normaliseTitle(cell: string): string {
  return cell
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/(\p{L})[-\u00ad]\s+(?=\p{L})/gu, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

const firstCell = (cells: string[]) => cells.find((c) => c.trim() !== '')?.trim() ?? '';

/** The line holding T-Bank's title of the deals table (in the file's first 200 KB); null for any other file. */
export function findTbankTitleLine(text: string): string | null {
  return text.slice(0, 200_000).split(/\r\n|\n|\r/).find((l) => normaliseTitle(l).includes(TITLE)) ?? null;
}

export type TbankDealRows =
  | { ok: true; columns: Map<CsvColumn, number>; width: number; rows: { line: number; cells: string[] }[] }
  | { ok: false; message: string };

/** The header and deal rows of the table, from the file's records (`splitCsv`). */
export function tbankDealRows(records: { line: number; cells: string[] }[]): TbankDealRows {
  const start = records.findIndex((r) => normaliseTitle(firstCell(r.cells)).startsWith(TITLE));
  const header = records[start + 1];
  if (start < 0 || !header) return { ok: false, message: 'The T-Bank report has no header row under its deals table.' };
  const titles = header.cells.map(normaliseTitle);
  const columns = new Map<CsvColumn, number>();
  for (const [column, words, not] of COLUMN_WORDS) {
    const i = titles.findIndex((t) => words.every((w) => t.includes(w)) && !not.some((w) => t.includes(w)));
    if (i >= 0) columns.set(column, i);
  }
  const missing = REQUIRED.filter((c) => !columns.has(c));
  if (missing.length > 0) return { ok: false, message: `The T-Bank report's deals table has no ${missing.join(', ')} column.` };

  const rows: { line: number; cells: string[] }[] = [];
  for (const record of records.slice(start + 2)) {
    const first = firstCell(record.cells);
    if (NEXT_TABLE.test(first)) break;
    // A header repeated on a new page, or a totals line, has no deal date.
    const date = (record.cells[columns.get('date')!] ?? '').trim();
    if (date === '' || normaliseTitle(date) === titles[columns.get('date')!]) continue;
    rows.push(record);
  }
  const width = Math.max(header.cells.length, ...rows.map((r) => r.cells.length));
  return { ok: true, columns, width, rows };
}
