/**
 * Parsing of MOEX ISS board responses (`/iss/engines/{engine}/markets/{market}[/boards/{board}]/securities.json`)
 * for every market the screener reads: shares, ETFs, bonds, futures and currencies. The markets have
 * different column sets, so everything is looked up by column NAME with a per-market chain of candidates,
 * missing optional columns are tolerated, and a missing REQUIRED column (SECID) rejects the whole block
 * with a MoexIssFormatError naming it. No I/O here.
 */
import type { AssetType } from '@invest/contracts';
import {
  BIGINT_MAX,
  INT_MAX,
  type IssRow,
  MoexIssFormatError,
  SMALLINT_MAX,
  hasIssBlock,
  issDate,
  issInteger,
  issIsin,
  MAX_SECID_LENGTH,
  issNonNegative,
  issNumber,
  issSecid,
  issString,
  normalizeCurrency,
  quoteTime,
  readIssBlock,
} from './moex-iss.parser.js';

export type MoexMarketKind = 'shares' | 'etfs' | 'bonds' | 'futures' | 'currencies';

/** A cell of one of the two joined blocks. */
interface Cell {
  block: 'marketdata' | 'securities';
  column: string;
}
const md = (column: string): Cell => ({ block: 'marketdata', column });
const sec = (column: string): Cell => ({ block: 'securities', column });

export interface MoexMarketSpec {
  kind: MoexMarketKind;
  assetType: AssetType;
  engine: string;
  market: string;
  /**
   * Board endpoints to read, in priority order (a security on two of them is taken from the first);
   * null reads the market endpoint (futures: every contract is on RFUD).
   */
  boards: readonly string[] | null;
  /** Boards whose rows are kept when reading the market endpoint. */
  marketBoards?: readonly string[];
  /** Price fallback chain (zero and negative count as missing). */
  priceChain: readonly Cell[];
  /** Chain columns that carry a price of the current session (a change derived from them is meaningful). */
  intradayPrices: readonly string[];
  /** Percent-change columns (vs the previous day), first non-null wins. */
  changeChain: readonly string[];
  /** Previous day's price, to derive the change when no change column is present. */
  previousPrice: readonly Cell[];
  /** How a quoted price becomes the asset's rate (money per unit), and in which currency. */
  valuation: 'price' | 'bond-percent-of-face' | 'futures-step-price';
}

/** The MOEX markets the rate jobs read. Board lists are deliberate (see README "Market data"). */
export const MOEX_MARKETS: Record<MoexMarketKind, MoexMarketSpec> = {
  shares: {
    kind: 'shares',
    assetType: 'share',
    engine: 'stock',
    market: 'shares',
    boards: ['TQBR', 'TQPI'],
    priceChain: [md('LAST'), md('LCURRENTPRICE'), md('MARKETPRICE'), sec('PREVPRICE'), sec('PREVLEGALCLOSEPRICE')],
    intradayPrices: ['LAST', 'LCURRENTPRICE'],
    changeChain: ['LASTTOPREVPRICE'],
    previousPrice: [sec('PREVPRICE'), sec('PREVLEGALCLOSEPRICE')],
    valuation: 'price',
  },
  etfs: {
    kind: 'etfs',
    assetType: 'etf',
    engine: 'stock',
    market: 'shares',
    boards: ['TQTF'],
    priceChain: [md('LAST'), md('LCURRENTPRICE'), md('MARKETPRICE'), sec('PREVPRICE'), sec('PREVLEGALCLOSEPRICE')],
    intradayPrices: ['LAST', 'LCURRENTPRICE'],
    changeChain: ['LASTTOPREVPRICE'],
    previousPrice: [sec('PREVPRICE')],
    valuation: 'price',
  },
  bonds: {
    kind: 'bonds',
    assetType: 'bond',
    engine: 'stock',
    market: 'bonds',
    // OFZ, corporate (RUB), exchange bonds, then the foreign-currency boards; SPOB/PACT (odd-lot and
    // negotiated deals) are not price sources.
    boards: ['TQOB', 'TQCB', 'TQIR', 'TQRD', 'TQOD', 'TQOE', 'TQOY', 'TQIY', 'TQUD'],
    priceChain: [md('LAST'), md('LCURRENTPRICE'), md('MARKETPRICE'), sec('PREVPRICE'), sec('PREVLEGALCLOSEPRICE')],
    intradayPrices: ['LAST', 'LCURRENTPRICE'],
    changeChain: ['LASTTOPREVPRICE'],
    previousPrice: [sec('PREVPRICE')],
    valuation: 'bond-percent-of-face',
  },
  futures: {
    kind: 'futures',
    assetType: 'future',
    engine: 'futures',
    market: 'forts',
    boards: null,
    marketBoards: ['RFUD'],
    priceChain: [md('LAST'), md('SETTLEPRICE'), sec('PREVSETTLEPRICE'), sec('PREVPRICE')],
    intradayPrices: ['LAST', 'SETTLEPRICE'],
    changeChain: ['LASTTOPREVPRICE', 'SETTLETOPREVSETTLEPRC'],
    previousPrice: [sec('PREVSETTLEPRICE'), sec('PREVPRICE')],
    valuation: 'futures-step-price',
  },
  currencies: {
    kind: 'currencies',
    assetType: 'currency',
    engine: 'currency',
    market: 'selt',
    boards: ['CETS'],
    priceChain: [md('LAST'), md('LCURRENTPRICE'), md('WAPRICE'), md('MARKETPRICE'), sec('PREVPRICE'), sec('PREVWAPRICE')],
    intradayPrices: ['LAST', 'LCURRENTPRICE', 'WAPRICE'],
    changeChain: ['LASTTOPREVPRICE'],
    previousPrice: [sec('PREVPRICE'), sec('PREVWAPRICE')],
    valuation: 'price',
  },
};

/** One security of one board with what the rate and stats jobs keep. */
export interface IssQuote {
  secid: string;
  board: string;
  name: string;
  shortName: string | null;
  latinName: string | null;
  isin: string | null;
  secType: string | null;
  /** Currency of `rate`. */
  currency: string;
  /** The price as the exchange quotes it (percent of face for bonds, points for index futures). */
  quotedPrice: number;
  priceSource: string;
  /** Money value of one unit (one share, one bond, one futures contract, one unit of currency), in `currency`. */
  rate: number;
  /** Percent change vs the previous day; null when the response does not say. */
  priceChangePercentage24h: number | null;
  /** ISSUECAPITALIZATION (shares); undefined when the column is absent. */
  marketCap: number | null | undefined;
  /** VALTODAY, in the board's settlement currency; undefined when the column is absent. */
  tradingVolume: number | null | undefined;
  lotSize: number | null;
  listLevel: number | null;
  issueSize: number | null;
  faceValue: number | null;
  faceUnit: string | null;
  maturityDate: string | null;
  quoteTime: Date | null;
}

export interface IssSkip {
  secid: string;
  board: string | null;
  reason: string;
}

export interface IssParseResult {
  quotes: IssQuote[];
  skipped: IssSkip[];
}

const REQUIRED = ['SECID'] as const;

function requireBlockColumns(rows: IssRow[], block: string, columns: readonly string[]): void {
  const first = rows[0];
  if (!first) return;
  const missing = columns.filter((c) => !(c in first));
  if (missing.length) throw new MoexIssFormatError(`ISS block "${block}" lacks required column(s) ${missing.join(', ')}`);
}

function cellValue(cell: Cell, rows: { marketdata: IssRow | undefined; securities: IssRow }): unknown {
  return rows[cell.block]?.[cell.column];
}

/**
 * Reads one response of a market (a board endpoint, or the futures market endpoint). `board` is the board
 * the request named; rows of other boards are ignored. Throws MoexIssFormatError when the response is not
 * an ISS document with `securities` and `marketdata` blocks, or a block lacks SECID. Rows that cannot give
 * a rate are returned in `skipped` with the reason.
 */
export function parseIssMarket(doc: unknown, spec: MoexMarketSpec, opts: { board?: string } = {}): IssParseResult {
  const securities = readIssBlock(doc, 'securities');
  if (!hasIssBlock(doc, 'marketdata')) throw new MoexIssFormatError('ISS response has no "marketdata" block');
  const marketdata = readIssBlock(doc, 'marketdata');
  requireBlockColumns(securities, 'securities', REQUIRED);
  requireBlockColumns(marketdata, 'marketdata', REQUIRED);

  const boardOf = (row: IssRow): string | null => issString(row.BOARDID) ?? opts.board ?? spec.marketBoards?.[0] ?? null;
  const accepted = (board: string | null): board is string =>
    board !== null && (opts.board ? board === opts.board : !spec.marketBoards || spec.marketBoards.includes(board));
  const key = (secid: string, board: string) => `${secid}|${board}`;

  const market = new Map<string, IssRow>();
  for (const row of marketdata) {
    const secid = issSecid(row.SECID);
    const board = boardOf(row);
    if (secid && accepted(board) && !market.has(key(secid, board))) market.set(key(secid, board), row);
  }

  const quotes: IssQuote[] = [];
  const skipped: IssSkip[] = [];
  const seen = new Set<string>();
  for (const s of securities) {
    const given = issString(s.SECID);
    const board = boardOf(s);
    if (!given || !accepted(board)) continue;
    const secid = issSecid(given);
    if (!secid) {
      skipped.push({ secid: given.length > 20 ? `${given.slice(0, 20)}…` : given, board, reason: `SECID is not a ticker (more than ${MAX_SECID_LENGTH} characters, or whitespace or control characters)` });
      continue;
    }
    if (seen.has(secid)) continue;
    seen.add(secid);
    const m = market.get(key(secid, board));
    const result = toQuote(spec, secid, board, s, m);
    if ('reason' in result) skipped.push(result);
    else quotes.push(result);
  }
  return { quotes, skipped };
}

function toQuote(spec: MoexMarketSpec, secid: string, board: string, s: IssRow, m: IssRow | undefined): IssQuote | IssSkip {
  const rows = { marketdata: m, securities: s };
  const skip = (reason: string): IssSkip => ({ secid, board, reason });

  let quotedPrice: number | null = null;
  let priceSource: string | null = null;
  for (const cell of spec.priceChain) {
    const v = issNumber(cellValue(cell, rows));
    if (v !== null && v > 0) {
      quotedPrice = v;
      priceSource = cell.column;
      break;
    }
  }
  if (quotedPrice === null || priceSource === null) return skip(`no price (${spec.priceChain.map((c) => c.column).join(', ')} all empty)`);

  const faceValue = issNumber(s.FACEVALUE);
  const faceUnit = normalizeCurrency(issString(s.FACEUNIT));
  const settlement = normalizeCurrency(issString(s.CURRENCYID));
  let rate: number;
  let currency: string | null;
  switch (spec.valuation) {
    case 'bond-percent-of-face':
      // Bond prices are a percent of the (current, possibly amortised) face value, in the face currency.
      if (faceValue === null || faceValue <= 0) return skip('no FACEVALUE to turn the percent price into money');
      rate = round((quotedPrice * faceValue) / 100, 6);
      currency = faceUnit ?? settlement;
      break;
    case 'futures-step-price': {
      // One contract is worth price / MINSTEP × STEPPRICE roubles (points and USD-quoted contracts alike).
      const step = issNumber(s.MINSTEP);
      const stepPrice = issNumber(s.STEPPRICE);
      if (step === null || step <= 0 || stepPrice === null || stepPrice <= 0) return skip('no MINSTEP/STEPPRICE to value the contract');
      rate = round((quotedPrice / step) * stepPrice, 6);
      currency = 'RUB';
      break;
    }
    default:
      rate = quotedPrice;
      currency = settlement ?? faceUnit;
  }
  if (!currency) return skip('no currency (CURRENCYID/FACEUNIT empty)');
  // A (near) zero divisor or an overflow upstream: never pass NaN/Infinity (or a rate rounded to 0) on.
  if (!(Number.isFinite(rate) && rate > 0)) return skip(`rate ${rate} is not a finite positive number`);

  return {
    secid,
    board,
    shortName: issString(s.SHORTNAME),
    name: issString(s.SECNAME) ?? issString(s.SHORTNAME) ?? secid,
    latinName: issString(s.LATNAME),
    // Fields that go to typed columns are checked here: one odd value of a new listing must not make the
    // database refuse its whole board. Out of range or impossible is unknown (null), like a missing cell.
    isin: issIsin(s.ISIN),
    secType: issString(s.SECTYPE),
    currency,
    quotedPrice,
    priceSource,
    rate,
    priceChangePercentage24h: change(spec, rows, quotedPrice, priceSource),
    marketCap: m && 'ISSUECAPITALIZATION' in m ? issNonNegative(m.ISSUECAPITALIZATION) : undefined,
    tradingVolume: m && 'VALTODAY' in m ? issNonNegative(m.VALTODAY) : undefined,
    lotSize: issInteger(s.LOTSIZE, 1, INT_MAX),
    listLevel: issInteger(s.LISTLEVEL, 0, SMALLINT_MAX),
    issueSize: issInteger(s.ISSUESIZE, 0, BIGINT_MAX),
    faceValue,
    faceUnit,
    maturityDate: issDate(s.MATDATE) ?? issDate(s.LASTTRADEDATE),
    quoteTime: quoteTime(m),
  };
}

function change(spec: MoexMarketSpec, rows: { marketdata: IssRow | undefined; securities: IssRow }, price: number, source: string): number | null {
  for (const column of spec.changeChain) {
    const v = issNumber(rows.marketdata?.[column]);
    if (v !== null) return v;
  }
  // No change column (e.g. CETS): derive it from the previous day's price, but only for a price of today.
  if (!spec.intradayPrices.includes(source)) return null;
  for (const cell of spec.previousPrice) {
    const prev = issNumber(cellValue(cell, rows));
    if (prev !== null && prev > 0) {
      const pct = round((price / prev - 1) * 100, 4);
      // A denormal PREVPRICE (> 0 yet a zero divisor in effect) gives Infinity: unknown rather than infinite.
      return Number.isFinite(pct) ? pct : null;
    }
  }
  return null;
}

export function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** Path and query of a market request (relative to the ISS base URL, which ends in `/iss`). */
export function issMarketPath(spec: MoexMarketSpec, board: string | null, secids?: readonly string[]): string {
  const path = board
    ? `/engines/${spec.engine}/markets/${spec.market}/boards/${encodeURIComponent(board)}/securities.json`
    : `/engines/${spec.engine}/markets/${spec.market}/securities.json`;
  const q = new URLSearchParams({ 'iss.meta': 'off', 'iss.only': 'securities,marketdata' });
  if (secids?.length) q.set('securities', secids.join(','));
  return `${path}?${q.toString()}`;
}

/** Market stats of one security on one board (the marketdata block, keyed by SECID). Undefined: the column is absent. */
export interface IssMarketStats {
  secid: string;
  board: string;
  marketCap: number | null | undefined;
  tradingVolume: number | null | undefined;
}

/**
 * ISSUECAPITALIZATION and VALTODAY of the `marketdata` block of one board's response, keyed by SECID. Rows of
 * other boards are ignored. Throws MoexIssFormatError when the block or its SECID column is missing.
 */
export function parseIssMarketStats(doc: unknown, board: string): IssMarketStats[] {
  if (!hasIssBlock(doc, 'marketdata')) throw new MoexIssFormatError('ISS response has no "marketdata" block');
  const rows = readIssBlock(doc, 'marketdata');
  requireBlockColumns(rows, 'marketdata', REQUIRED);
  const out = new Map<string, IssMarketStats>();
  for (const row of rows) {
    const secid = issSecid(row.SECID);
    const rowBoard = issString(row.BOARDID) ?? board;
    if (!secid || rowBoard !== board || out.has(secid)) continue;
    out.set(secid, {
      secid,
      board,
      // A negative capitalisation or traded value is a provider error: unknown (the stored stat is kept).
      marketCap: 'ISSUECAPITALIZATION' in row ? issNonNegative(row.ISSUECAPITALIZATION) : undefined,
      tradingVolume: 'VALTODAY' in row ? issNonNegative(row.VALTODAY) : undefined,
    });
  }
  return [...out.values()];
}
