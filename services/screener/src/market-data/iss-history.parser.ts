/**
 * One page of `/iss/history/engines/{engine}/markets/{market}/boards/{board}/securities/{SECID}.json`: block
 * `history` (a row per trading day: BOARDID, TRADEDATE, SECID, OPEN, LOW, HIGH, LEGALCLOSEPRICE, WAPRICE, CLOSE,
 * VOLUME, …) and block `history.cursor` (INDEX, TOTAL, PAGESIZE: 100 rows a page). The next page is asked with
 * `start = INDEX + PAGESIZE` while that is below TOTAL (shared/reference/moex-iss.md, "History paging"). No I/O here.
 */
import { hasIssBlock, issDate, issNumber, issString, readIssBlock } from './moex-iss.parser.js';

export interface IssHistoryClose {
  /** `YYYY-MM-DD` (the exchange's trading day). */
  date: string;
  /** The day's closing price as ISS quotes it (CLOSE, else LEGALCLOSEPRICE): money for shares, percent of face for bonds. */
  close: number;
}

export interface IssHistoryPage {
  closes: IssHistoryClose[];
  /** Rows without a positive close, a real date, or of another board or security. */
  dropped: number;
  /** `start` of the next page, or null when this was the last (or the cursor is missing or does not advance). */
  nextStart: number | null;
}

export function parseIssHistory(doc: unknown, opts: { secid?: string; board?: string } = {}): IssHistoryPage {
  const rows = readIssBlock(doc, 'history');
  const byDate = new Map<string, number>();
  let dropped = 0;
  for (const row of rows) {
    const secid = issString(row.SECID);
    const board = issString(row.BOARDID);
    if ((opts.secid && secid && secid.toUpperCase() !== opts.secid.toUpperCase()) || (opts.board && board && board !== opts.board)) {
      dropped++;
      continue;
    }
    const date = issDate(row.TRADEDATE);
    // A day without trades has CLOSE null; the official close (LEGALCLOSEPRICE) is then the day's price.
    const close = [issNumber(row.CLOSE), issNumber(row.LEGALCLOSEPRICE)].find((n) => n !== null && n > 0) ?? null;
    if (!date || close === null) {
      dropped++;
      continue;
    }
    if (byDate.has(date)) dropped++;
    byDate.set(date, close);
  }
  const closes = [...byDate].map(([date, close]) => ({ date, close })).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { closes, dropped, nextStart: nextStart(doc) };
}

function nextStart(doc: unknown): number | null {
  if (!hasIssBlock(doc, 'history.cursor')) return null;
  const [cursor] = readIssBlock(doc, 'history.cursor');
  const index = issNumber(cursor?.INDEX);
  const total = issNumber(cursor?.TOTAL);
  const pageSize = issNumber(cursor?.PAGESIZE);
  if (index === null || total === null || pageSize === null || pageSize <= 0) return null;
  return index + pageSize < total ? index + pageSize : null;
}
