import {
  ASSET_TYPES,
  type AssetType,
  CURRENCY_CODES,
  DEAL_IMPORT_MAX_ROWS,
  DEAL_TYPES,
  dealDateSchema,
  type DealType,
  decimalSchema,
  type ImportedDealFields,
  type ImportErrorCode,
  type ImportRowError,
} from '@invest/contracts';
import { findTbankTitleLine, tbankDealRows } from './tbank-report.js';

/**
 * The generic deal CSV (services/portfolios/README.md, "Importing deals from CSV"): a header row naming the
 * columns (English or Russian, any order, other columns ignored), `;`, `,` or tab separated, quotes as in
 * RFC 4180, decimals with a point or a comma.
 */

export type CsvColumn = 'date' | 'type' | 'ticker' | 'asset_type' | 'isin' | 'quantity' | 'price' | 'commission' | 'currency';

/** Header names (lower case, `_`/`-` read as spaces) of each column. */
const COLUMN_NAMES: Record<CsvColumn, string[]> = {
  date: ['date', 'trade date', 'дата', 'дата сделки'],
  type: ['type', 'operation', 'тип', 'операция', 'тип операции', 'вид сделки'],
  ticker: ['ticker', 'symbol', 'тикер'],
  asset_type: ['asset type', 'тип актива'],
  isin: ['isin'],
  quantity: ['quantity', 'qty', 'количество', 'кол во'],
  price: ['price', 'цена'],
  commission: ['commission', 'fee', 'комиссия'],
  currency: ['currency', 'валюта'],
};
const COLUMN_OF = new Map<string, CsvColumn>(Object.entries(COLUMN_NAMES).flatMap(([col, names]) => names.map((n) => [n, col as CsvColumn])));

const TYPE_OF = new Map<string, DealType>([
  ...DEAL_TYPES.map((t) => [t, t] as const),
  ['покупка', 'buy'],
  ['купля', 'buy'],
  ['продажа', 'sell'],
  ['дивиденд', 'dividend'],
  ['дивиденды', 'dividend'],
  ['купон', 'coupon'],
  ['комиссия', 'fee'],
  ['налог', 'tax'],
]);

const ASSET_TYPE_OF = new Map<string, AssetType>([
  ...ASSET_TYPES.map((t) => [t, t] as const),
  ['акция', 'share'],
  ['облигация', 'bond'],
  ['фонд', 'etf'],
  ['валюта', 'currency'],
  ['фьючерс', 'future'],
  ['токен', 'token'],
]);

export interface CsvRow {
  /** Line of the file where the row starts (the header is line 1). */
  line: number;
  /** The row as read, when every field could be read. */
  deal: ImportedDealFields | null;
  errors: ImportRowError[];
  /** The cells by column, as written. */
  values: Record<string, string>;
}

/** `generic`: the documented header-row format; `tbank`: T-Bank's broker report (its deals table, see `tbank-report.ts`). */
export type ImportFormat = 'generic' | 'tbank';

export type ParsedCsv = { ok: true; format: ImportFormat; separator: string; rows: CsvRow[] } | { ok: false; message: string };

/** Splits CSV text into records of cells (RFC 4180 quotes; `\r\n`, `\n` or `\r` line ends), with the line each starts on. */
export function splitCsv(text: string, separator: string): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let touched = false;
  const endRecord = () => {
    cells.push(cell);
    if (touched || cells.length > 1 || cell.trim() !== '') records.push({ line: start, cells });
    cells = [];
    cell = '';
    touched = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line++;
        cell += c;
      }
    } else if (c === '"' && cell.trim() === '') {
      quoted = true;
      touched = true;
      cell = '';
    } else if (c === separator) {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRecord();
      line++;
      start = line;
    } else cell += c;
  }
  if (cell !== '' || cells.length > 0 || touched) endRecord();
  return records;
}

/** The separator the header uses: the most frequent of `;`, tab and `,` outside quotes (`;` on a tie). */
export function detectSeparator(headerLine: string): string {
  const unquoted = headerLine.replace(/"[^"]*"/g, '');
  const count = (c: string) => unquoted.split(c).length - 1;
  const candidates = [';', '\t', ','];
  return candidates.reduce((best, c) => (count(c) > count(best) ? c : best), ';');
}

const normaliseHeader = (h: string) => h.trim().toLowerCase().replace(/[_\-\s]+/g, ' ');

/** Reads the file: the header, then each row with its fields or its errors. A file it cannot read at all gives `ok: false`. */
export function parseDealCsv(input: string): ParsedCsv {
  const text = input.startsWith('\uFEFF') ? input.slice(1) : input;
  const titleLine = findTbankTitleLine(text);
  if (titleLine !== null) return parseTbankReport(text, detectSeparator(titleLine));
  const firstLine = text.split(/\r\n|\n|\r/, 1)[0] ?? '';
  if (firstLine.trim() === '') return { ok: false, message: 'The file is empty or its first line is not a header row.' };
  const separator = detectSeparator(firstLine);
  const [header, ...records] = splitCsv(text, separator);
  if (!header) return { ok: false, message: 'The file is empty.' };

  const columns = new Map<CsvColumn, number>();
  for (const [i, name] of header.cells.entries()) {
    const col = COLUMN_OF.get(normaliseHeader(name));
    if (!col) continue;
    if (columns.has(col)) return { ok: false, message: `The column ${col} appears twice in the header.` };
    columns.set(col, i);
  }
  const missing = (['date', 'type', 'quantity', 'price'] as const).filter((c) => !columns.has(c));
  if (!columns.has('ticker') && !columns.has('isin')) missing.push('ticker' as never);
  if (missing.length > 0) return { ok: false, message: `The header has no ${missing.join(', ')} column (see the format in the help).` };
  if (records.length > DEAL_IMPORT_MAX_ROWS) {
    return { ok: false, message: `The file has ${records.length} rows; at most ${DEAL_IMPORT_MAX_ROWS} can be imported at once.` };
  }
  const rows = records.map((r) => parseRow(r.line, r.cells, header.cells.length, columns));
  return { ok: true, format: 'generic', separator, rows };
}

/** T-Bank's broker report: its deals table read with the generic row rules, by the columns `tbank-report.ts` finds. */
function parseTbankReport(text: string, separator: string): ParsedCsv {
  const records = splitCsv(text, separator);
  const table = tbankDealRows(records);
  if (!table.ok) return table;
  if (table.rows.length > DEAL_IMPORT_MAX_ROWS) {
    return { ok: false, message: `The file has ${table.rows.length} rows; at most ${DEAL_IMPORT_MAX_ROWS} can be imported at once.` };
  }
  const rows = table.rows.map((r) => parseRow(r.line, r.cells, table.width, table.columns));
  return { ok: true, format: 'tbank', separator, rows };
}

function parseRow(line: number, cells: string[], width: number, columns: Map<CsvColumn, number>): CsvRow {
  const values: Record<string, string> = {};
  for (const [col, i] of columns) values[col] = (cells[i] ?? '').trim();
  const errors: ImportRowError[] = [];
  const fail = (field: string, code: ImportErrorCode, message: string) => {
    errors.push({ field, code, message });
    return null;
  };
  // Fewer cells read as empty ones, extra empty ones (a trailing separator) are ignored; extra values are an error.
  if (cells.slice(width).some((c) => c.trim() !== '')) {
    // A decimal comma in a comma-separated file, unquoted, splits the number: say so rather than misread it.
    fail('row', 'columns', `The row has ${cells.length} fields, the header ${width}. With "," as the separator, quote numbers with a decimal comma ("250,5").`);
    return { line, deal: null, errors, values };
  }
  const cell = (c: CsvColumn) => values[c] ?? '';

  const date = readDate(cell('date')) ?? fail('date', cell('date') === '' ? 'required' : 'invalid_date', cell('date') === '' ? 'The date is required.' : 'The date must be YYYY-MM-DD or DD.MM.YYYY and exist.');
  const type = cell('type') === '' ? fail('type', 'required', 'The type is required.') : (TYPE_OF.get(cell('type').toLowerCase()) ?? fail('type', 'invalid_type', `The type must be one of: ${DEAL_TYPES.join(', ')}.`));
  const ticker = cell('ticker') === '' ? null : cell('ticker').toUpperCase();
  const isin = cell('isin') === '' ? null : cell('isin').toUpperCase();
  if (ticker === null && isin === null) fail('ticker', 'required', 'The ticker (or the ISIN) is required.');
  if (isin !== null && !/^[A-Z]{2}[A-Z0-9]{9}\d$/.test(isin)) fail('isin', 'invalid_number', 'The ISIN must be 12 characters: 2 letters, 9 letters or digits, a digit.');
  let assetType: AssetType | null = null;
  if (cell('asset_type') !== '') {
    assetType = ASSET_TYPE_OF.get(cell('asset_type').toLowerCase()) ?? fail('asset_type', 'invalid_asset_type', `The asset type must be one of: ${ASSET_TYPES.join(', ')}.`);
  }
  const quantity = readDecimal(cell('quantity'), 'quantity', fail);
  const price = readDecimal(cell('price'), 'price', fail);
  const commission = cell('commission') === '' ? '0' : readDecimal(cell('commission'), 'commission', fail);
  let currency: string | null = null;
  if (cell('currency') !== '') {
    const code = cell('currency').toUpperCase() === 'RUR' ? 'RUB' : cell('currency').toUpperCase();
    currency = (CURRENCY_CODES as readonly string[]).includes(code) ? code : fail('currency', 'invalid_currency', `The currency must be one of: ${CURRENCY_CODES.join(', ')}.`);
  }
  if (errors.length > 0 || date === null || type === null || quantity === null || price === null || commission === null) return { line, deal: null, errors, values };
  return { line, deal: { date, type, ticker, isin, asset_type: assetType, quantity, price, commission, currency }, errors, values };
}

/** `YYYY-MM-DD` or `DD.MM.YYYY` (a time after it, as brokers' exports have, is ignored); null when neither or not a real date. */
export function readDate(text: string): string | null {
  const iso = /^(\d{4}-\d{2}-\d{2})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?$/.exec(text);
  const ru = /^(\d{2})\.(\d{2})\.(\d{4})(?: \d{1,2}:\d{2}(?::\d{2})?)?$/.exec(text);
  const date = iso ? iso[1]! : ru ? `${ru[3]}-${ru[2]}-${ru[1]}` : null;
  return date !== null && dealDateSchema.safeParse(date).success ? date : null;
}

const quantitySchemas = {
  quantity: decimalSchema('quantity', 'positive'),
  price: decimalSchema('price', 'nonnegative'),
  commission: decimalSchema('commission', 'nonnegative'),
};

/**
 * A decimal with a point or a comma; spaces (also non-breaking ones) between thousands are dropped. Both a
 * point and a comma (`1,234.5`) is refused: which one is the decimal mark cannot be told for sure.
 */
function readDecimal(
  text: string,
  field: 'quantity' | 'price' | 'commission',
  fail: (field: string, code: ImportErrorCode, message: string) => null,
): string | null {
  if (text === '') return fail(field, 'required', `The ${field} is required.`);
  const compact = text.replace(/[\s\u00a0\u202f]/g, '');
  if (compact.includes(',') && compact.includes('.')) return fail(field, 'invalid_number', `The ${field} must be a number with either a decimal point or a decimal comma, not both.`);
  const parsed = quantitySchemas[field].safeParse(compact.replace(',', '.'));
  if (!parsed.success) return fail(field, 'invalid_number', parsed.error.issues[0]?.message ?? `The ${field} must be a number.`);
  return parsed.data;
}
