import { DEAL_IMPORT_MAX_ROWS } from '@invest/contracts';
import { describe, expect, it } from 'vitest';
import { detectSeparator, parseDealCsv, readDate, splitCsv } from './deal-csv.parser.js';
import { importFingerprints } from './import-fingerprint.js';

const ok = (text: string) => {
  const parsed = parseDealCsv(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed;
};

describe('deal CSV parser', () => {
  it('reads the generic format with commas and decimal points', () => {
    const parsed = ok('date,type,ticker,quantity,price,commission,currency\n2024-01-10,buy,sber,10,250.5,0.5,RUB\n2024-03-01,dividend,SBER,10,33.3,,rub\n');
    expect(parsed.separator).toBe(',');
    expect(parsed.rows.map((r) => [r.line, r.deal, r.errors])).toEqual([
      [2, { date: '2024-01-10', type: 'buy', ticker: 'SBER', isin: null, asset_type: null, quantity: '10', price: '250.5', commission: '0.5', currency: 'RUB' }, []],
      [3, { date: '2024-03-01', type: 'dividend', ticker: 'SBER', isin: null, asset_type: null, quantity: '10', price: '33.3', commission: '0', currency: 'RUB' }, []],
    ]);
  });

  it('reads Russian headers, semicolons, decimal commas, DD.MM.YYYY dates and Russian types', () => {
    const parsed = ok('\uFEFFДата;Операция;Тикер;Тип актива;ISIN;Количество;Цена;Комиссия;Валюта\r\n10.01.2024 10:15:00;Покупка;GAZP;акция;ru0007661625;1 000;163,45;1,63;RUR\r\n11.01.2024;Продажа;GAZP;share;;500;170,00;0;RUB\r\n');
    expect(parsed.separator).toBe(';');
    expect(parsed.rows[0]!.deal).toEqual({
      date: '2024-01-10',
      type: 'buy',
      ticker: 'GAZP',
      isin: 'RU0007661625',
      asset_type: 'share',
      quantity: '1000',
      price: '163.45',
      commission: '1.63',
      currency: 'RUB',
    });
    expect(parsed.rows[1]!.deal).toMatchObject({ type: 'sell', price: '170', quantity: '500' });
  });

  it('reads quoted decimal commas in a comma-separated file, and says why an unquoted one splits the row', () => {
    const parsed = ok('date,type,ticker,quantity,price\n2024-01-10,buy,SBER,10,"250,5"\n2024-01-10,buy,SBER,10,250,5\n');
    expect(parsed.rows[0]!.deal?.price).toBe('250.5');
    expect(parsed.rows[1]!.deal).toBeNull();
    expect(parsed.rows[1]!.errors).toEqual([expect.objectContaining({ field: 'row', code: 'columns' })]);
  });

  it('reads rows with a trailing separator or without the optional cells at the end', () => {
    const parsed = ok('date;type;ticker;quantity;price;commission;currency\n2024-01-10;buy;SBER;10;250;;;\n2024-01-10;buy;SBER;10;250\n2024-01-10;buy;SBER;10\n');
    expect(parsed.rows.map((r) => r.deal?.commission ?? r.errors.map((e) => `${e.field}:${e.code}`).join())).toEqual(['0', '0', 'price:required']);
  });

  it('gives each bad field of a row its own error, with the cells as written', () => {
    const parsed = ok('date;type;ticker;asset_type;isin;quantity;price;commission;currency\n2024-02-30;swap;;stock;XX1;-1;1,2.3;0.123456789;DOGE\n');
    const row = parsed.rows[0]!;
    expect(row.deal).toBeNull();
    expect(row.errors.map((e) => [e.field, e.code])).toEqual([
      ['date', 'invalid_date'],
      ['type', 'invalid_type'],
      ['isin', 'invalid_number'],
      ['asset_type', 'invalid_asset_type'],
      ['quantity', 'invalid_number'],
      ['price', 'invalid_number'],
      ['commission', 'invalid_number'],
      ['currency', 'invalid_currency'],
    ]);
    expect(row.errors.find((e) => e.field === 'quantity')?.message).toBe('The quantity must be greater than 0.');
    expect(row.errors.find((e) => e.field === 'commission')?.message).toBe('The commission may not have more than 8 decimal places.');
    expect(row.values).toMatchObject({ date: '2024-02-30', type: 'swap', quantity: '-1' });
  });

  it('requires the date, type, quantity, price and a ticker or ISIN in each row', () => {
    const parsed = ok('date;type;ticker;quantity;price\n;;;;\n');
    // A line of separators only is a row (all empty), not a blank line.
    expect(parsed.rows[0]!.errors.map((e) => [e.field, e.code])).toEqual([
      ['date', 'required'],
      ['type', 'required'],
      ['ticker', 'required'],
      ['quantity', 'required'],
      ['price', 'required'],
    ]);
  });

  it('refuses a file without the needed columns, with a column twice, or empty', () => {
    expect(parseDealCsv('date;ticker;quantity\n2024-01-01;SBER;1')).toEqual({ ok: false, message: expect.stringContaining('type, price') });
    expect(parseDealCsv('date;type;ticker;quantity;price;цена\n')).toEqual({ ok: false, message: 'The column price appears twice in the header.' });
    expect(parseDealCsv('')).toMatchObject({ ok: false });
    expect(parseDealCsv('date;type;isin;quantity;price\n2024-01-01;buy;RU0009029540;1;1').ok).toBe(true);
  });

  it(`takes ${DEAL_IMPORT_MAX_ROWS} rows and refuses one more; blank lines do not count`, () => {
    const row = '2024-01-10;buy;SBER;1;100\n';
    const at = `date;type;ticker;quantity;price\n${row.repeat(DEAL_IMPORT_MAX_ROWS)}\n\n`;
    expect(ok(at).rows).toHaveLength(DEAL_IMPORT_MAX_ROWS);
    expect(parseDealCsv(at + row)).toEqual({ ok: false, message: `The file has ${DEAL_IMPORT_MAX_ROWS + 1} rows; at most ${DEAL_IMPORT_MAX_ROWS} can be imported at once.` });
  });

  it('splits quoted cells with separators, quotes and line breaks, counting lines', () => {
    expect(splitCsv('a;"b;""c""\nd"\n\nx;y\r\nz', ';')).toEqual([
      { line: 1, cells: ['a', 'b;"c"\nd'] },
      { line: 4, cells: ['x', 'y'] },
      { line: 5, cells: ['z'] },
    ]);
    expect(detectSeparator('date,type,"a;b",price')).toBe(',');
    expect(detectSeparator('date\ttype\tprice')).toBe('\t');
    expect(detectSeparator('date;type;"a,b,c"')).toBe(';');
  });

  it('reads ISO and Russian dates that exist', () => {
    expect(readDate('2024-02-29')).toBe('2024-02-29');
    expect(readDate('29.02.2024')).toBe('2024-02-29');
    expect(readDate('2024-02-29T10:00:00')).toBe('2024-02-29');
    expect(readDate('29.02.2023')).toBeNull();
    expect(readDate('1899-12-31')).toBeNull();
    expect(readDate('2024/01/01')).toBeNull();
  });
});

describe('import fingerprints', () => {
  it('agree for the same row written differently, and tell repeated identical rows apart', () => {
    const a = ok('date;type;ticker;quantity;price\n10.01.2024;buy;sber;10;250,50\n10.01.2024;buy;SBER;10;250,5\n');
    const b = ok('date,type,ticker,quantity,price,commission\n2024-01-10,buy,SBER,10,250.5,0\n');
    const [a1, a2] = importFingerprints(1, a.rows.map((r) => r.deal));
    const [b1] = importFingerprints(1, b.rows.map((r) => r.deal));
    expect(a1).toBe(b1);
    expect(a2).not.toBe(a1);
    expect(importFingerprints(2, b.rows.map((r) => r.deal))[0]).not.toBe(b1);
    expect(importFingerprints(1, [null])).toEqual([null]);
  });
});
