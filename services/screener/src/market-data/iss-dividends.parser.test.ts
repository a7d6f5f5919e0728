import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseIssDividends } from './iss-dividends.parser.js';

const fixtures = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'moex-iss', 'dividends');
const load = (name: string) => JSON.parse(readFileSync(join(fixtures, name), 'utf8')) as { dividends: { columns: string[]; data: unknown[][] } };

describe('parseIssDividends', () => {
  it('keeps positive values once, with SUR as RUB', () => {
    const doc = load('SBER.json');
    const result = parseIssDividends(doc, 'SBER');
    if (!result.known) throw new Error('expected known dividends');
    // By hand from the file: 12 rows; one null, one 0 and one repeated row are dropped.
    const raw = doc.dividends.data;
    expect(raw).toHaveLength(12);
    expect(result.dropped).toBe(3);
    expect(result.dividends).toHaveLength(9);
    expect(result.dividends[0]).toEqual({ recordDate: '2014-06-17', value: 3.2, currency: 'RUB' });
    expect(result.dividends.filter((d) => d.recordDate === '2021-05-12')).toHaveLength(1);
    expect(result.dividends.every((d) => d.currency === 'RUB' && d.value > 0)).toBe(true);
    expect(result.nextStart).toBeNull();
  });

  it('drops rows whose record date is not a real date (Postgres would reject the whole share, and the run with it)', () => {
    const doc = {
      dividends: {
        columns: ['secid', 'isin', 'registryclosedate', 'value', 'currencyid'],
        data: [
          ['X', null, '0000-00-00', 1, 'RUB'],
          ['X', null, '2024-02-30', 2, 'RUB'],
          ['X', null, '2024-13-01', 3, 'RUB'],
          ['X', null, '2024-02-29', 4, 'RUB'],
        ],
      },
    };
    expect(parseIssDividends(doc, 'X')).toMatchObject({ known: true, dropped: 3, dividends: [{ recordDate: '2024-02-29', value: 4, currency: 'RUB' }] });
  });

  it('treats a response without the dividends block as unknown', () => {
    const result = parseIssDividends(load('LKOH.json'), 'LKOH');
    expect(result).toMatchObject({ known: false });
    expect(parseIssDividends('<html></html>')).toMatchObject({ known: false });
  });

  it('knows "no dividends" from an empty block, and follows dividends.cursor', () => {
    expect(parseIssDividends({ dividends: { columns: ['secid', 'isin', 'registryclosedate', 'value', 'currencyid'], data: [] } })).toEqual({
      known: true,
      dividends: [],
      dropped: 0,
      nextStart: null,
    });
    const paged = {
      dividends: { columns: ['secid', 'isin', 'registryclosedate', 'value', 'currencyid'], data: [['X', null, '2020-01-01', 1, 'USD']] },
      'dividends.cursor': { columns: ['INDEX', 'TOTAL', 'PAGESIZE'], data: [[0, 150, 100]] },
    };
    expect(parseIssDividends(paged)).toMatchObject({ known: true, nextStart: 100 });
  });
});
