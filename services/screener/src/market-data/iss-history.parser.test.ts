import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { screenerPackageRoot } from '../package-root.js';
import { parseIssHistory } from './iss-history.parser.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(join(screenerPackageRoot(), 'test', 'fixtures', 'moex-iss', 'history', name), 'utf8'));
type Block = { columns: string[]; data: unknown[][] };
/** A cell of the fixture read by hand: the row of `date` on `board`. */
const cell = (doc: unknown, date: string, column: string, board = 'TQBR') => {
  const h = (doc as { history: Block }).history;
  const row = h.data.find((r) => r[h.columns.indexOf('TRADEDATE')] === date && r[h.columns.indexOf('BOARDID')] === board)!;
  return row[h.columns.indexOf(column)];
};

describe('parseIssHistory (history pages with history.cursor)', () => {
  const first = fixture('SBER.page-0.json');
  const second = fixture('SBER.page-100.json');

  it('reads a page of closes and the next page’s start from the cursor', () => {
    const page = parseIssHistory(first, { secid: 'SBER', board: 'TQBR' });
    // 100 rows: one of another board (SMAL) is dropped.
    expect(page.closes).toHaveLength(99);
    expect(page.dropped).toBe(1);
    expect(page.closes[0]).toEqual({ date: '2023-09-01', close: cell(first, '2023-09-01', 'CLOSE') });
    expect(page.nextStart).toBe(100);
    const dates = page.closes.map((c) => c.date);
    expect(dates).toEqual([...dates].sort());
  });

  it('a day without trades takes its official close (LEGALCLOSEPRICE)', () => {
    expect(cell(first, '2023-09-26', 'CLOSE')).toBeNull();
    const page = parseIssHistory(first, { secid: 'SBER', board: 'TQBR' });
    expect(page.closes.find((c) => c.date === '2023-09-26')).toEqual({ date: '2023-09-26', close: cell(first, '2023-09-26', 'LEGALCLOSEPRICE') });
  });

  it('the last page (INDEX + PAGESIZE ≥ TOTAL) has no next start', () => {
    const page = parseIssHistory(second, { secid: 'SBER', board: 'TQBR' });
    expect(page.closes).toHaveLength(31);
    expect(page.closes.at(-1)).toEqual({ date: '2024-02-29', close: cell(second, '2024-02-29', 'CLOSE') });
    expect(page.nextStart).toBeNull();
  });

  it('without a cursor, or with one that does not advance, there is no next page; without a history block it throws', () => {
    const doc = structuredClone(first) as Record<string, unknown>;
    delete doc['history.cursor'];
    expect(parseIssHistory(doc).nextStart).toBeNull();
    (doc as { 'history.cursor': Block })['history.cursor'] = { columns: ['INDEX', 'TOTAL', 'PAGESIZE'], data: [[0, 500, 0]] };
    expect(parseIssHistory(doc).nextStart).toBeNull();
    expect(() => parseIssHistory({ securities: { columns: [], data: [] } })).toThrow(/history/);
  });

  it('reads the extended JSON shape too', () => {
    const h = (first as { history: Block }).history;
    const extended = [{ charsetinfo: { name: 'utf-8' } }, { history: h.data.slice(0, 3).map((r) => Object.fromEntries(h.columns.map((c, i) => [c, r[i]]))) }];
    expect(parseIssHistory(extended).closes.map((c) => c.date)).toEqual(['2023-09-01', '2023-09-04', '2023-09-05']);
  });
});
