/**
 * The fake MOEX ISS's history endpoint (`/iss/history/engines/{engine}/markets/{market}/boards/{board}/securities/
 * {SECID}.json`), built from the captures: the captures hold one day's prices, so the history of a security is a
 * deterministic walk on weekdays from `from` (default two years back) to `till` (default yesterday, UTC) that ends
 * at its captured price. **Demo data, not market history.** Paged like ISS: 100 rows from `start`, with a
 * `history.cursor` block (INDEX, TOTAL, PAGESIZE), in the real column layout (test/fixtures/moex-iss/history/).
 */
import type { IssBlock, IssDoc } from './fake-providers.js';

const PAGE_SIZE = 100;
const COLUMNS = ['BOARDID', 'TRADEDATE', 'SHORTNAME', 'SECID', 'NUMTRADES', 'VALUE', 'OPEN', 'LOW', 'HIGH', 'LEGALCLOSEPRICE', 'WAPRICE', 'CLOSE', 'VOLUME'];
const DAY_MS = 86_400_000;

/** The security's captured price on the board (LAST, else the previous close), or null when the capture lacks it. */
function capturedPrice(doc: IssDoc, board: string, secid: string): { price: number; shortName: string } | null {
  const find = (block: IssBlock | undefined) => {
    if (!block) return undefined;
    const s = block.columns.indexOf('SECID');
    const b = block.columns.indexOf('BOARDID');
    const row = block.data.find((r) => r[s] === secid && (b < 0 || r[b] === board));
    return row && ((name: string) => row[block.columns.indexOf(name)]);
  };
  const market = find(doc.marketdata);
  const security = find(doc.securities);
  const price = [market?.('LAST'), market?.('LCURRENTPRICE'), security?.('PREVPRICE'), security?.('PREVLEGALCLOSEPRICE'), security?.('PREVSETTLEPRICE')].find(
    (v): v is number => typeof v === 'number' && v > 0,
  );
  return price ? { price, shortName: String(security?.('SHORTNAME') ?? secid) } : null;
}

/** A stable number in [-1, 1) from a security and a day. */
function wobble(key: string, day: number): number {
  let h = 2166136261;
  for (const ch of `${key}:${day}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return ((h >>> 0) % 20001) / 10000 - 1;
}

/** Undefined when the security is not in the capture (ISS then answers an empty history block). */
export function fakeIssHistory(doc: IssDoc, board: string, secid: string, q: URLSearchParams): IssDoc {
  const found = capturedPrice(doc, board, secid);
  const today = Math.floor(Date.now() / DAY_MS);
  const from = Date.parse(`${q.get('from') ?? ''}T00:00:00Z`);
  const till = Date.parse(`${q.get('till') ?? ''}T00:00:00Z`);
  const first = Number.isFinite(from) ? Math.floor(from / DAY_MS) : today - 730;
  const last = Math.min(Number.isFinite(till) ? Math.floor(till / DAY_MS) : today - 1, today - 1);
  const rows: unknown[][] = [];
  if (found) {
    // Walk back from the captured price (at most 1.5 % a day), then emit oldest first.
    let price = found.price;
    for (let day = last; day >= first; day--) {
      const weekday = new Date(day * DAY_MS).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      const close = +price.toPrecision(6);
      const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
      rows.push([board, date, found.shortName, secid, 1000, close * 1000, close, close, close, close, close, close, 1000]);
      price = price / (1 + 0.015 * wobble(secid, day));
    }
    rows.reverse();
  }
  const start = Math.max(0, Number(q.get('start') ?? 0) || 0);
  return {
    history: { columns: [...COLUMNS], data: rows.slice(start, start + PAGE_SIZE) },
    'history.cursor': { columns: ['INDEX', 'TOTAL', 'PAGESIZE'], data: [[start, rows.length, PAGE_SIZE]] },
  };
}
