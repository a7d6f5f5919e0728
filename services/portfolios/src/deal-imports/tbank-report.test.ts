import { describe, expect, it } from 'vitest';
import { tbankReportCsv } from '../testing/tbank-report.js';
import { parseDealCsv } from './deal-csv.parser.js';

describe("T-Bank's broker report", () => {
  it('reads the deals of table 1.1 only, by the words of its wrapped column titles', () => {
    const parsed = parseDealCsv(
      tbankReportCsv(
        [
          { date: '10.01.2024', side: 'Покупка', ticker: 'SBER', price: 250.5, quantity: 10, commission: 0.75 },
          { date: '15.02.2024', side: 'Продажа', ticker: 'SBER', price: 300, quantity: 5, commission: 0.45 },
        ],
        [{ date: '29.03.2024', side: 'Покупка', ticker: 'GAZP', price: 160, quantity: 1, commission: 0 }],
      ),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.format).toBe('tbank');
    expect(parsed.separator).toBe(';');
    // Lines of the text: the header's wrapped titles take five.
    expect(parsed.rows.map((r) => [r.line, r.deal, r.errors])).toEqual([
      [10, { date: '2024-01-10', type: 'buy', ticker: 'SBER', isin: null, asset_type: null, quantity: '10', price: '250.5', commission: '0.75', currency: 'RUB' }, []],
      [11, { date: '2024-02-15', type: 'sell', ticker: 'SBER', isin: null, asset_type: null, quantity: '5', price: '300', commission: '0.45', currency: 'RUB' }, []],
    ]);
  });

  it('gives a bad deal its row errors, like a generic row', () => {
    const parsed = parseDealCsv(tbankReportCsv([{ date: '31.02.2024', side: 'Покупка', ticker: 'SBER', price: -1, quantity: 10, commission: 0 }]));
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.rows.map((r) => r.errors.map((e) => `${e.field}:${e.code}`))).toEqual([['date:invalid_date', 'price:invalid_number']]);
  });

  it('names the missing columns of a report whose deals table lacks them', () => {
    const text = tbankReportCsv([]).replace('Код актива', 'Код');
    expect(parseDealCsv(text)).toEqual({ ok: false, message: "The T-Bank report's deals table has no ticker column." });
  });

  it('reads a file without the title as the generic format', () => {
    const parsed = parseDealCsv('date;type;ticker;quantity;price\n2024-01-10;buy;SBER;10;250\n');
    expect(parsed.ok && parsed.format).toBe('generic');
  });
});
