/**
 * `GET /iss/securities/{SECID}/dividends.json`: block `dividends` with lower-case columns
 * `secid, isin, registryclosedate, value, currencyid`. A response WITHOUT the block means "unknown" (ISS has
 * answered 200 with the plain security card), never "no dividends". No I/O here.
 */
import { hasIssBlock, issDate, issNumber, issString, normalizeCurrency, readIssBlock } from './moex-iss.parser.js';

export interface IssDividend {
  recordDate: string;
  /** Per share, in `currency`. */
  value: number;
  currency: string;
}

export type IssDividendsResult =
  | { known: false; reason: string }
  | {
      known: true;
      dividends: IssDividend[];
      /** Rows dropped: null or zero values, missing dates or currencies, duplicates. */
      dropped: number;
      /** Next page's `start`, when a `dividends.cursor` block says there is more. */
      nextStart: number | null;
    };

const lower = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v]));

export function parseIssDividends(doc: unknown, secid?: string): IssDividendsResult {
  if (!hasIssBlock(doc, 'dividends')) return { known: false, reason: 'the response has no "dividends" block (unknown, not "none")' };
  const rows = readIssBlock(doc, 'dividends').map(lower);
  const first = rows[0];
  if (first && !('registryclosedate' in first && 'value' in first)) {
    return { known: false, reason: 'the "dividends" block lacks registryclosedate/value columns' };
  }
  const seen = new Set<string>();
  const dividends: IssDividend[] = [];
  let dropped = 0;
  for (const row of rows) {
    const rowSecid = issString(row.secid);
    if (secid && rowSecid && rowSecid.toUpperCase() !== secid.toUpperCase()) {
      dropped++;
      continue;
    }
    const recordDate = issDate(row.registryclosedate);
    const value = issNumber(row.value);
    const currency = normalizeCurrency(issString(row.currencyid));
    if (!recordDate || value === null || value <= 0 || !currency) {
      dropped++;
      continue;
    }
    // Near-identical rows (same date and currency, value equal to 6 decimals) are one payment.
    const key = `${recordDate}|${currency}|${value.toFixed(6)}`;
    if (seen.has(key)) {
      dropped++;
      continue;
    }
    seen.add(key);
    dividends.push({ recordDate, value, currency });
  }
  return { known: true, dividends, dropped, nextStart: nextStart(doc) };
}

function nextStart(doc: unknown): number | null {
  if (!hasIssBlock(doc, 'dividends.cursor')) return null;
  const [cursor] = readIssBlock(doc, 'dividends.cursor').map(lower);
  const index = issNumber(cursor?.index);
  const total = issNumber(cursor?.total);
  const pageSize = issNumber(cursor?.pagesize);
  if (index === null || total === null || pageSize === null || pageSize <= 0) return null;
  return index + pageSize < total ? index + pageSize : null;
}
