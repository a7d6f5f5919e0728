import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOEX_MARKETS, issMarketPath, parseIssMarket, parseIssMarketStats } from './iss-market.parser.js';
import { MoexIssFormatError } from './moex-iss.parser.js';

type Block = { columns: string[]; data: unknown[][] };
type Doc = Record<string, Block>;
const fixtures = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'moex-iss');
const load = (name: string): Doc => JSON.parse(readFileSync(join(fixtures, name), 'utf8')) as Doc;

/** A raw cell of a fixture, looked up by hand (independent of the parser). */
function cell(doc: Doc, block: string, secid: string, board: string, column: string): unknown {
  const b = doc[block]!;
  const row = b.data.find((r) => r[b.columns.indexOf('SECID')] === secid && r[b.columns.indexOf('BOARDID')] === board);
  if (!row) throw new Error(`no ${block} row ${secid}/${board}`);
  const i = b.columns.indexOf(column);
  if (i < 0) throw new Error(`no column ${column} in ${block}`);
  return row[i];
}
const boardRows = (doc: Doc, board: string) => doc.securities!.data.filter((r) => r[doc.securities!.columns.indexOf('BOARDID')] === board);

/** Rewrites a block: columns reversed, an extra column first, some columns dropped. */
function reshape(block: Block, drop: string[] = []): Block {
  const keep = block.columns.map((c, i) => [c, i] as const).filter(([c]) => !drop.includes(c)).reverse();
  return { columns: ['ZZ_NEW_2031', ...keep.map(([c]) => c)], data: block.data.map((row) => ['x', ...keep.map(([, i]) => row[i])]) };
}

describe('parseIssMarket: shares (real capture, one board)', () => {
  const doc = load('shares.json');
  const tqbr = parseIssMarket(doc, MOEX_MARKETS.shares, { board: 'TQBR' });

  it('takes every row of the requested board and nothing else', () => {
    expect(tqbr.quotes.length + tqbr.skipped.length).toBe(boardRows(doc, 'TQBR').length);
    expect(tqbr.quotes.every((q) => q.board === 'TQBR')).toBe(true);
    expect(tqbr.skipped).toEqual([]);
  });

  it('reads SBER from its TQBR row (not SMAL or SPEQ)', () => {
    const sber = tqbr.quotes.find((q) => q.secid === 'SBER')!;
    expect(sber.rate).toBe(cell(doc, 'marketdata', 'SBER', 'TQBR', 'LAST'));
    expect(sber.rate).not.toBe(cell(doc, 'marketdata', 'SBER', 'SMAL', 'LAST'));
    expect(sber.priceChangePercentage24h).toBe(cell(doc, 'marketdata', 'SBER', 'TQBR', 'LASTTOPREVPRICE'));
    expect(sber.marketCap).toBe(cell(doc, 'marketdata', 'SBER', 'TQBR', 'ISSUECAPITALIZATION'));
    expect(sber.tradingVolume).toBe(cell(doc, 'marketdata', 'SBER', 'TQBR', 'VALTODAY'));
    expect(sber).toMatchObject({ currency: 'RUB', isin: 'RU0009029540', secType: '1', priceSource: 'LAST', lotSize: 10 });
    // UPDATETIME 17:54:06 on SYSTIME's date, Moscow time (UTC+3).
    expect(sber.quoteTime?.toISOString()).toBe('2024-02-15T14:54:06.000Z');
  });

  it('follows the fallback chain when nothing traded (TRNFP: LAST null → LCURRENTPRICE)', () => {
    const trnfp = tqbr.quotes.find((q) => q.secid === 'TRNFP')!;
    expect(cell(doc, 'marketdata', 'TRNFP', 'TQBR', 'LAST')).toBeNull();
    expect(trnfp).toMatchObject({ rate: cell(doc, 'marketdata', 'TRNFP', 'TQBR', 'LCURRENTPRICE'), priceSource: 'LCURRENTPRICE' });
  });

  it('keeps ISSUECAPITALIZATION null for depositary receipts, and undefined when the column is gone', () => {
    expect(tqbr.quotes.find((q) => q.secid === 'OZON')!.marketCap).toBeNull();
    const drifted = { ...doc, marketdata: reshape(doc.marketdata!, ['ISSUECAPITALIZATION']) };
    expect(parseIssMarket(drifted, MOEX_MARKETS.shares, { board: 'TQBR' }).quotes.find((q) => q.secid === 'SBER')!.marketCap).toBeUndefined();
  });

  it('ignores extra columns and order; derives the change from PREVPRICE when LASTTOPREVPRICE is gone', () => {
    const drifted = { ...doc, securities: reshape(doc.securities!), marketdata: reshape(doc.marketdata!, ['LASTTOPREVPRICE']) };
    const sber = parseIssMarket(drifted, MOEX_MARKETS.shares, { board: 'TQBR' }).quotes.find((q) => q.secid === 'SBER')!;
    expect(sber.rate).toBe(cell(doc, 'marketdata', 'SBER', 'TQBR', 'LAST'));
    const last = cell(doc, 'marketdata', 'SBER', 'TQBR', 'LAST') as number;
    const prev = cell(doc, 'securities', 'SBER', 'TQBR', 'PREVPRICE') as number;
    expect(sber.priceChangePercentage24h).toBeCloseTo((last / prev - 1) * 100, 3);
  });

  it('rejects the block when a required column is missing, and non-ISS bodies', () => {
    expect(() => parseIssMarket({ ...doc, marketdata: reshape(doc.marketdata!, ['SECID']) }, MOEX_MARKETS.shares, { board: 'TQBR' })).toThrow(/SECID/);
    expect(() => parseIssMarket({ ...doc, securities: reshape(doc.securities!, ['SECID']) }, MOEX_MARKETS.shares, { board: 'TQBR' })).toThrow(MoexIssFormatError);
    expect(() => parseIssMarket('<html><body>blocked</body></html>', MOEX_MARKETS.shares, { board: 'TQBR' })).toThrow(MoexIssFormatError);
    expect(() => parseIssMarket({ securities: doc.securities }, MOEX_MARKETS.shares, { board: 'TQBR' })).toThrow(/marketdata/);
  });

  it('uses the requested board when a board endpoint drops BOARDID', () => {
    const only = (block: Block) => ({ ...block, data: block.data.filter((r) => r[block.columns.indexOf('BOARDID')] === 'TQBR') });
    const board = { securities: reshape(only(doc.securities!), ['BOARDID']), marketdata: reshape(only(doc.marketdata!), ['BOARDID']) };
    const sber = parseIssMarket(board, MOEX_MARKETS.shares, { board: 'TQBR' }).quotes.find((q) => q.secid === 'SBER')!;
    expect(sber).toMatchObject({ board: 'TQBR', rate: cell(doc, 'marketdata', 'SBER', 'TQBR', 'LAST') });
  });

  it('reads ETFs of TQTF', () => {
    const etfs = parseIssMarket(doc, MOEX_MARKETS.etfs, { board: 'TQTF' });
    expect(etfs.quotes.length + etfs.skipped.length).toBe(boardRows(doc, 'TQTF').length);
    expect(etfs.quotes.find((q) => q.secid === 'AKGD')).toMatchObject({ rate: cell(doc, 'marketdata', 'AKGD', 'TQTF', 'LAST'), secType: 'J', currency: 'RUB' });
  });
});

describe('parseIssMarket: values a column cannot hold are unknown, the row is kept', () => {
  /** The shares capture with some cells of SBER's TQBR rows replaced. */
  function patched(securities: Record<string, unknown>, marketdata: Record<string, unknown> = {}): Doc {
    const doc = load('shares.json');
    for (const [block, patch] of [['securities', securities], ['marketdata', marketdata]] as const) {
      const b = doc[block]!;
      const row = b.data.find((r) => r[b.columns.indexOf('SECID')] === 'SBER' && r[b.columns.indexOf('BOARDID')] === 'TQBR')!;
      for (const [column, value] of Object.entries(patch)) row[b.columns.indexOf(column)] = value;
    }
    return doc;
  }
  const sber = (doc: Doc) => parseIssMarket(doc, MOEX_MARKETS.shares, { board: 'TQBR' }).quotes.find((q) => q.secid === 'SBER')!;

  it('drops a fractional or out-of-range LOTSIZE, LISTLEVEL, ISSUESIZE and an over-long ISIN', () => {
    expect(sber(patched({ LOTSIZE: 0.5, LISTLEVEL: 40000, ISSUESIZE: 1e20, ISIN: 'X'.repeat(6000) }))).toMatchObject({
      rate: cell(load('shares.json'), 'marketdata', 'SBER', 'TQBR', 'LAST'),
      lotSize: null,
      listLevel: null,
      issueSize: null,
      isin: null,
    });
    expect(sber(patched({ LOTSIZE: 5_000_000_000 })).lotSize).toBeNull();
  });

  it('takes a negative ISSUECAPITALIZATION or VALTODAY as unknown, in the quotes and in the stats', () => {
    const doc = patched({}, { ISSUECAPITALIZATION: -5, VALTODAY: -7 });
    expect(sber(doc)).toMatchObject({ marketCap: null, tradingVolume: null });
    expect(parseIssMarketStats(doc, 'TQBR').find((s) => s.secid === 'SBER')).toMatchObject({ marketCap: null, tradingVolume: null });
  });

  it('drops an impossible MATDATE of a bond', () => {
    const doc = load('bonds.json');
    const b = doc.securities!;
    const row = b.data.find((r) => r[b.columns.indexOf('SECID')] === 'SU26207RMFS9' && r[b.columns.indexOf('BOARDID')] === 'TQOB')!;
    row[b.columns.indexOf('MATDATE')] = '2024-02-30';
    const bond = parseIssMarket(doc, MOEX_MARKETS.bonds, { board: 'TQOB' }).quotes.find((q) => q.secid === 'SU26207RMFS9')!;
    expect(bond.maturityDate).toBeNull();
  });
});

describe('parseIssMarket: bonds (real capture)', () => {
  const doc = load('bonds.json');

  it('turns the percent price into money: rate = price% × FACEVALUE / 100, in FACEUNIT', () => {
    const ofz = parseIssMarket(doc, MOEX_MARKETS.bonds, { board: 'TQOB' });
    const q = ofz.quotes.find((x) => x.secid === 'SU26207RMFS9')!;
    const last = cell(doc, 'marketdata', 'SU26207RMFS9', 'TQOB', 'LAST') as number;
    const face = cell(doc, 'securities', 'SU26207RMFS9', 'TQOB', 'FACEVALUE') as number;
    expect(last).toBe(91.08);
    expect(face).toBe(1000);
    expect(q).toMatchObject({ quotedPrice: 91.08, rate: 910.8, currency: 'RUB', faceValue: 1000 });
    // BOARDID is column 34 of bonds marketdata, not 2: the join is by name.
    expect(q.priceChangePercentage24h).toBe(cell(doc, 'marketdata', 'SU26207RMFS9', 'TQOB', 'LASTTOPREVPRICE'));
  });

  it('prices a USD-denominated bond traded in roubles in USD', () => {
    const cb = parseIssMarket(doc, MOEX_MARKETS.bonds, { board: 'TQCB' });
    const cols = doc.securities!.columns;
    // By hand: the first TQCB row with a USD face, settled in SUR, that traded today.
    const usdRow = doc.securities!.data.find(
      (r) =>
        r[cols.indexOf('BOARDID')] === 'TQCB' &&
        r[cols.indexOf('FACEUNIT')] === 'USD' &&
        r[cols.indexOf('CURRENCYID')] === 'SUR' &&
        typeof cell(doc, 'marketdata', r[cols.indexOf('SECID')] as string, 'TQCB', 'LAST') === 'number',
    )!;
    const secid = usdRow[cols.indexOf('SECID')] as string;
    const last = cell(doc, 'marketdata', secid, 'TQCB', 'LAST') as number;
    const q = cb.quotes.find((x) => x.secid === secid)!;
    expect(q).toMatchObject({ currency: 'USD', quotedPrice: last, priceSource: 'LAST' });
    expect(q.rate).toBeCloseTo((last * (usdRow[cols.indexOf('FACEVALUE')] as number)) / 100, 6);
  });

  it('skips a bond with no price anywhere in the chain, with the reason', () => {
    const ofz = parseIssMarket(doc, MOEX_MARKETS.bonds, { board: 'TQOB' });
    const cols = doc.securities!.columns;
    const mcols = doc.marketdata!.columns;
    const priceless = doc.securities!.data
      .filter((r) => r[cols.indexOf('BOARDID')] === 'TQOB')
      .filter((r) => {
        const m = doc.marketdata!.data.find((x) => x[mcols.indexOf('SECID')] === r[cols.indexOf('SECID')] && x[mcols.indexOf('BOARDID')] === 'TQOB');
        return ['LAST', 'LCURRENTPRICE', 'MARKETPRICE'].every((c) => !m?.[mcols.indexOf(c)]) && !r[cols.indexOf('PREVPRICE')] && !r[cols.indexOf('PREVLEGALCLOSEPRICE')];
      })
      .map((r) => r[cols.indexOf('SECID')]);
    expect(ofz.skipped.map((s) => s.secid).sort()).toEqual([...priceless].sort());
    for (const s of ofz.skipped) expect(s.reason).toMatch(/no price/);
    expect(ofz.quotes.length + ofz.skipped.length).toBe(boardRows(doc, 'TQOB').length);
  });
});

describe('parseIssMarket: futures and currencies (their own column sets)', () => {
  it('values a futures contract in roubles: price / MINSTEP × STEPPRICE', () => {
    const doc = load('futures-forts.json');
    const { quotes } = parseIssMarket(doc, MOEX_MARKETS.futures);
    const ri = quotes.find((q) => q.secid === 'RIH4')!;
    // 112890 points = 11289 steps of 10 points, each worth 18.36 RUB.
    expect(ri).toMatchObject({ quotedPrice: 112890, rate: 207266.04, currency: 'RUB', board: 'RFUD', priceChangePercentage24h: 0.48 });
    expect(quotes.find((q) => q.secid === 'SiH4')).toMatchObject({ rate: 91861, priceChangePercentage24h: 0.06 });
    // No trades: SETTLEPRICE, and the settlement change when LASTTOPREVPRICE is null.
    expect(quotes.find((q) => q.secid === 'GDM4')).toMatchObject({ quotedPrice: 2035.2, priceSource: 'SETTLEPRICE', priceChangePercentage24h: 0.19 });
    expect(quotes.find((q) => q.secid === 'SiH4')!.quoteTime?.toISOString()).toBe('2024-02-15T15:34:58.000Z');
  });

  it('reads CETS with SECID not first and no LASTTOPREVPRICE', () => {
    const doc = load('currency-selt-cets.json');
    expect(doc.marketdata!.columns.indexOf('SECID')).toBeGreaterThan(0);
    const { quotes } = parseIssMarket(doc, MOEX_MARKETS.currencies, { board: 'CETS' });
    expect(quotes.find((q) => q.secid === 'USD000UTSTOM')).toMatchObject({ rate: 91.7325, currency: 'RUB', priceChangePercentage24h: 0.2541 });
    // Nothing traded: the previous day's market price, and no change rather than a made-up one.
    expect(quotes.find((q) => q.secid === 'HKDRUB_TOM')).toMatchObject({ rate: 11.73, priceSource: 'MARKETPRICE', priceChangePercentage24h: null });
  });

  it('never yields a non-finite change or rate from a (near) zero divisor', () => {
    const setCell = (doc: Doc, block: string, secid: string, column: string, value: unknown) => {
      const b = doc[block]!;
      for (const row of b.data.filter((r) => r[b.columns.indexOf('SECID')] === secid)) row[b.columns.indexOf(column)] = value;
    };
    // CETS derives the change from PREVPRICE: a denormal PREVPRICE (> 0) would make it Infinity.
    const cets = load('currency-selt-cets.json');
    setCell(cets, 'securities', 'USD000UTSTOM', 'PREVPRICE', 1e-320);
    const usd = parseIssMarket(cets, MOEX_MARKETS.currencies, { board: 'CETS' }).quotes.find((q) => q.secid === 'USD000UTSTOM');
    expect(usd).toMatchObject({ rate: 91.7325, priceChangePercentage24h: null });
    // Futures divide by MINSTEP: a denormal step makes the contract value Infinity; such a row is skipped.
    const forts = load('futures-forts.json');
    setCell(forts, 'securities', 'RIH4', 'MINSTEP', 1e-320);
    const parsed = parseIssMarket(forts, MOEX_MARKETS.futures);
    expect(parsed.quotes.find((q) => q.secid === 'RIH4')).toBeUndefined();
    expect(parsed.skipped.find((q) => q.secid === 'RIH4')?.reason).toMatch(/not a finite positive/);
    for (const q of parsed.quotes) expect(Number.isFinite(q.rate) && (q.priceChangePercentage24h === null || Number.isFinite(q.priceChangePercentage24h))).toBe(true);
  });

  it('tolerates a futures response without STEPPRICE by skipping its rows with a reason', () => {
    const doc = load('futures-forts.json');
    const { quotes, skipped } = parseIssMarket({ ...doc, securities: reshape(doc.securities!, ['STEPPRICE']) }, MOEX_MARKETS.futures);
    expect(quotes).toEqual([]);
    expect(skipped[0]?.reason).toMatch(/STEPPRICE/);
  });
});

describe('issMarketPath', () => {
  it('asks for the two blocks without metadata, optionally for some securities', () => {
    expect(issMarketPath(MOEX_MARKETS.shares, 'TQBR')).toBe('/engines/stock/markets/shares/boards/TQBR/securities.json?iss.meta=off&iss.only=securities%2Cmarketdata');
    expect(issMarketPath(MOEX_MARKETS.futures, null, ['SiH4', 'RIH4'])).toBe(
      '/engines/futures/markets/forts/securities.json?iss.meta=off&iss.only=securities%2Cmarketdata&securities=SiH4%2CRIH4',
    );
  });
});
