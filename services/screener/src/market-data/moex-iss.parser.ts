/**
 * Plain functions over MOEX ISS responses (`/iss/engines/stock/markets/shares/...securities.json`).
 * Columns are always looked up by NAME (the column set and order drift over the years); rows of the
 * `securities` and `marketdata` blocks are joined on (SECID, BOARDID). No I/O here: the demo-data loader
 * feeds a stored capture, the live rate fetcher feeds HTTP responses.
 */
import { MOEX_TZ, zonedTimeToUtc } from './market-time.js';

/** One ISS row, keyed by column name. Columns absent from the response are simply absent here. */
export type IssRow = Record<string, unknown>;

export class MoexIssFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MoexIssFormatError';
  }
}

/** Main boards of shares and depositary receipts: TQBR, and TQPI for high-risk-sector shares. */
export const MAIN_SHARE_BOARDS = ['TQBR', 'TQPI'] as const;

/** Whether the response carries `block` (compact `{columns, data}` or `iss.json=extended` shape). */
export function hasIssBlock(doc: unknown, block: string): boolean {
  return findBlock(doc, block) !== undefined;
}

function findBlock(doc: unknown, block: string): unknown {
  if (Array.isArray(doc)) {
    // iss.json=extended: [{"charsetinfo": …}, {"securities": [{…}], "marketdata": [{…}]}]
    for (const part of doc) {
      if (part && typeof part === 'object' && block in part) return (part as Record<string, unknown>)[block];
    }
    return undefined;
  }
  if (doc && typeof doc === 'object' && block in doc) return (doc as Record<string, unknown>)[block];
  return undefined;
}

/**
 * The rows of one block as objects keyed by column name. Extra columns are kept, missing ones are absent,
 * short rows get `null` for their missing cells. Throws MoexIssFormatError when the block is missing or
 * is not an ISS block (e.g. an HTML error page parsed as something else).
 */
export function readIssBlock(doc: unknown, block: string): IssRow[] {
  const raw = findBlock(doc, block);
  if (raw === undefined) throw new MoexIssFormatError(`ISS response has no "${block}" block`);
  if (Array.isArray(raw)) {
    // Extended shape: rows are already objects.
    if (!raw.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
      throw new MoexIssFormatError(`ISS block "${block}" has rows that are not objects`);
    }
    return raw as IssRow[];
  }
  const { columns, data } = (raw ?? {}) as { columns?: unknown; data?: unknown };
  if (!Array.isArray(columns) || !columns.every((c) => typeof c === 'string')) {
    throw new MoexIssFormatError(`ISS block "${block}" has no column list`);
  }
  if (!Array.isArray(data)) throw new MoexIssFormatError(`ISS block "${block}" has no data array`);
  const names = columns as string[];
  return data.map((row, i) => {
    if (!Array.isArray(row)) throw new MoexIssFormatError(`ISS block "${block}" row ${i} is not an array`);
    const out: IssRow = {};
    names.forEach((name, idx) => {
      out[name] = idx < row.length ? row[idx] : null;
    });
    return out;
  });
}

/** A finite number from an ISS cell (numbers, or numeric strings); null otherwise. */
export function issNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** A number ≥ 0 (a market cap, a traded value); a negative one is a provider error and taken as unknown. */
export function issNonNegative(v: unknown): number | null {
  const n = issNumber(v);
  return n !== null && n >= 0 ? n : null;
}

/** Ranges of the integer columns counts are stored in (`int`, `smallint`, `bigint`). */
export const INT_MAX = 2_147_483_647;
export const SMALLINT_MAX = 32_767;
/** The largest double below 2^63 (bigint's limit is 2^63 − 1, which a double cannot hold). */
export const BIGINT_MAX = 9_223_372_036_854_774_784;

/** A non-empty string from an ISS cell; null otherwise. */
export function issString(v: unknown): string | null {
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/**
 * A whole number from an ISS cell within `[min, max]`; null otherwise. Counts (lot size, list level, issue size)
 * go to integer columns: a fraction or a value beyond the column's range would make Postgres refuse the whole
 * batch, so such a value is taken as unknown.
 */
export function issInteger(v: unknown, min: number, max: number): number | null {
  const n = issNumber(v);
  return n !== null && Number.isInteger(n) && n >= min && n <= max ? n : null;
}

/** `YYYY-MM-DD` naming a real day; null otherwise (ISS writes `0000-00-00` for an unknown date; Postgres rejects `2024-02-30`). */
export function issDate(v: unknown): string | null {
  const s = issString(v);
  const m = s ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(s) : null;
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d ? s : null;
}

/**
 * An ISIN of the ISO 6166 shape (two letters, nine letters or digits, a check digit); null otherwise. Anything
 * else is not an ISIN, and a very long value cannot even be stored (the `assets_isin` btree index refuses rows over
 * ~2.7 kB), which would fail the whole board's batch.
 */
export function issIsin(v: unknown): string | null {
  const s = issString(v)?.toUpperCase();
  return s && /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/.test(s) ? s : null;
}

/** The longest SECID taken (MOEX's are 4-12 characters; ISS's column holds up to 51). */
export const MAX_SECID_LENGTH = 51;

/**
 * A SECID of at most MAX_SECID_LENGTH characters with no whitespace or control characters; null otherwise. It
 * becomes the asset's ticker, and one too long for the ticker index (~2.7 kB) made Postgres refuse the whole
 * board's batch.
 */
export function issSecid(v: unknown): string | null {
  const s = issString(v);
  return s && s.length <= MAX_SECID_LENGTH && !/[\s\p{Cc}]/u.test(s) ? s : null;
}

/** ISS uses the legacy code `SUR` for roubles. */
export function normalizeCurrency(code: string | null | undefined): string | null {
  if (!code) return null;
  const upper = code.trim().toUpperCase();
  if (upper === '') return null;
  return upper === 'SUR' || upper === 'RUR' ? 'RUB' : upper;
}

export type PriceSource = 'LAST' | 'LCURRENTPRICE' | 'MARKETPRICE' | 'PREVPRICE' | 'PREVLEGALCLOSEPRICE';

/**
 * The current price by the fallback chain LAST → LCURRENTPRICE (official current price) → MARKETPRICE
 * (previous day's market price) → securities.PREVPRICE → securities.PREVLEGALCLOSEPRICE.
 * Zero or negative values are treated as missing.
 */
export function pickPrice(market: IssRow | undefined, security: IssRow | undefined): { price: number; source: PriceSource } | null {
  const chain: [PriceSource, IssRow | undefined][] = [
    ['LAST', market],
    ['LCURRENTPRICE', market],
    ['MARKETPRICE', market],
    ['PREVPRICE', security],
    ['PREVLEGALCLOSEPRICE', security],
  ];
  for (const [column, row] of chain) {
    const v = issNumber(row?.[column]);
    if (v !== null && v > 0) return { price: v, source: column };
  }
  return null;
}

/**
 * How much later than SYSTIME's time UPDATETIME must be to belong to the previous day. The data is at most
 * minutes (15, delayed) old, so only a time many hours "ahead" means midnight was crossed (SYSTIME 00:05,
 * UPDATETIME 23:50); a second or a few minutes ahead is clock jitter of the same day, not 24 hours back.
 */
const MIDNIGHT_CROSSED_MS = 12 * 3600_000;

/**
 * When the quote was taken: the date of SYSTIME with the time of UPDATETIME (the delayed data's own time),
 * both Moscow time. UPDATETIME more than 12 hours later than SYSTIME's time means it belongs to the previous
 * day. Falls back to SYSTIME alone; null when there is no SYSTIME.
 */
export function quoteTime(market: IssRow | undefined): Date | null {
  const sys = issString(market?.SYSTIME);
  if (!sys) return null;
  const sysInstant = zonedTimeToUtc(sys, MOEX_TZ);
  if (!sysInstant) return null;
  const upd = issString(market?.UPDATETIME);
  if (upd && /^\d{2}:\d{2}(:\d{2})?$/.test(upd)) {
    const combined = zonedTimeToUtc(`${sys.slice(0, 10)} ${upd}`, MOEX_TZ);
    if (combined) return combined.getTime() - sysInstant.getTime() > MIDNIGHT_CROSSED_MS ? new Date(combined.getTime() - 86_400_000) : combined;
  }
  return sysInstant;
}

/** One security on one board with the market data the screener keeps. */
export interface MoexShareQuote {
  secid: string;
  board: string;
  shortName: string | null;
  /** Full name (SECNAME), falling back to SHORTNAME, then SECID. */
  name: string;
  latinName: string | null;
  isin: string | null;
  /** `1` ordinary, `2` preferred, `D` depositary receipt; other codes are funds. */
  secType: string | null;
  listLevel: number | null;
  lotSize: number | null;
  issueSize: number | null;
  /** Settlement currency, `SUR` normalised to `RUB`. */
  currency: string | null;
  price: number | null;
  priceSource: PriceSource | null;
  /** LASTTOPREVPRICE: already a percent. */
  priceChangePercentage24h: number | null;
  /** ISSUECAPITALIZATION, RUB (null for depositary receipts). */
  marketCap: number | null;
  /** VALTODAY, in the board's settlement currency. */
  tradingVolume: number | null;
  tradingStatus: string | null;
  quoteTime: Date | null;
}

/**
 * Joins `securities` and `marketdata` on (SECID, BOARDID) for the given boards. A security listed on more
 * than one of them is taken once, from the earliest board in `boards`. Securities without a marketdata row
 * keep their identity and fall back to PREVPRICE.
 */
export function parseMoexShares(doc: unknown, opts: { boards?: readonly string[] } = {}): MoexShareQuote[] {
  const boards = opts.boards ?? MAIN_SHARE_BOARDS;
  const securities = readIssBlock(doc, 'securities');
  const marketdata = hasIssBlock(doc, 'marketdata') ? readIssBlock(doc, 'marketdata') : [];
  requireColumns(securities, 'securities', ['SECID', 'BOARDID']);
  requireColumns(marketdata, 'marketdata', ['SECID', 'BOARDID']);

  const key = (row: IssRow) => `${issString(row.SECID)}|${issString(row.BOARDID)}`;
  const market = new Map<string, IssRow>();
  for (const row of marketdata) market.set(key(row), row);

  const chosen = new Map<string, MoexShareQuote>();
  const rank = (board: string) => boards.indexOf(board);
  for (const sec of securities) {
    const secid = issSecid(sec.SECID);
    const board = issString(sec.BOARDID);
    if (!secid || !board || rank(board) < 0) continue;
    const existing = chosen.get(secid);
    if (existing && rank(existing.board) <= rank(board)) continue;
    chosen.set(secid, toQuote(secid, board, sec, market.get(key(sec))));
  }
  return [...chosen.values()];
}

function requireColumns(rows: IssRow[], block: string, columns: string[]): void {
  const first = rows[0];
  if (!first) return;
  const missing = columns.filter((c) => !(c in first));
  if (missing.length) throw new MoexIssFormatError(`ISS block "${block}" lacks column(s) ${missing.join(', ')}`);
}

function toQuote(secid: string, board: string, sec: IssRow, md: IssRow | undefined): MoexShareQuote {
  const price = pickPrice(md, sec);
  const shortName = issString(sec.SHORTNAME);
  return {
    secid,
    board,
    shortName,
    name: issString(sec.SECNAME) ?? shortName ?? secid,
    latinName: issString(sec.LATNAME),
    isin: issIsin(sec.ISIN),
    secType: issString(sec.SECTYPE),
    listLevel: issInteger(sec.LISTLEVEL, 0, SMALLINT_MAX),
    lotSize: issInteger(sec.LOTSIZE, 1, INT_MAX),
    issueSize: issInteger(sec.ISSUESIZE, 0, BIGINT_MAX),
    currency: normalizeCurrency(issString(sec.CURRENCYID)),
    price: price?.price ?? null,
    priceSource: price?.source ?? null,
    priceChangePercentage24h: issNumber(md?.LASTTOPREVPRICE),
    marketCap: issNonNegative(md?.ISSUECAPITALIZATION),
    tradingVolume: issNonNegative(md?.VALTODAY),
    tradingStatus: issString(md?.TRADINGSTATUS),
    quoteTime: quoteTime(md),
  };
}
