import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { screenerDataFile } from '../package-root.js';
import {
  MoexIssFormatError,
  type IssRow,
  hasIssBlock,
  issDate,
  issInteger,
  issIsin,
  issSecid,
  MAX_SECID_LENGTH,
  issNonNegative,
  issNumber,
  normalizeCurrency,
  parseMoexShares,
  pickPrice,
  quoteTime,
  readIssBlock,
} from './moex-iss.parser.js';

type Block = { columns: string[]; data: unknown[][] };
type Doc = Record<string, Block>;

const fixture = (): Doc => JSON.parse(readFileSync(screenerDataFile('moex-shares-2024-02-15.json'), 'utf8')) as Doc;

/** A cell of the raw capture, looked up by hand (independent of the parser). */
function cell(doc: Doc, block: string, secid: string, board: string, column: string): unknown {
  const b = doc[block]!;
  const row = b.data.find((r) => r[b.columns.indexOf('SECID')] === secid && r[b.columns.indexOf('BOARDID')] === board);
  if (!row) throw new Error(`no ${block} row ${secid}/${board}`);
  return row[b.columns.indexOf(column)];
}

/** Rewrites a block with its columns in another order, an extra column, and optionally without some columns. */
function reshape(block: Block, opts: { drop?: string[] } = {}): Block {
  const keep = block.columns.map((c, i) => [c, i] as const).filter(([c]) => !opts.drop?.includes(c));
  const order = [...keep].reverse();
  return {
    columns: ['NEWCOLUMN_2030', ...order.map(([c]) => c)],
    data: block.data.map((row) => ['x', ...order.map(([, i]) => row[i])]),
  };
}

describe('readIssBlock', () => {
  it('keys every row of the real capture by column name', () => {
    const doc = fixture();
    const securities = readIssBlock(doc, 'securities');
    const marketdata = readIssBlock(doc, 'marketdata');
    // shares.json: securities 27 × 696, marketdata 56 × 696 (shared/reference/moex-iss.md)
    expect(securities).toHaveLength(696);
    expect(marketdata).toHaveLength(696);
    expect(Object.keys(securities[0]!)).toHaveLength(27);
    expect(Object.keys(marketdata[0]!)).toHaveLength(56);
    expect(securities[0]).toMatchObject({ SECID: 'ABIO', BOARDID: 'SMAL', ISIN: 'RU000A0JNAB6' });
  });

  it('reads the iss.json=extended shape too', () => {
    const extended = [{ charsetinfo: { name: 'utf-8' } }, { securities: [{ SECID: 'SBER', BOARDID: 'TQBR' }] }];
    expect(readIssBlock(extended, 'securities')).toEqual([{ SECID: 'SBER', BOARDID: 'TQBR' }]);
    expect(hasIssBlock(extended, 'marketdata')).toBe(false);
  });

  it('fills short rows with null and rejects what is not an ISS block', () => {
    expect(readIssBlock({ b: { columns: ['A', 'B'], data: [['x']] } }, 'b')).toEqual([{ A: 'x', B: null }]);
    expect(() => readIssBlock({}, 'securities')).toThrow(MoexIssFormatError);
    expect(() => readIssBlock('<html>blocked</html>', 'securities')).toThrow(MoexIssFormatError);
    expect(() => readIssBlock({ securities: { data: [] } }, 'securities')).toThrow(/column list/);
    expect(() => readIssBlock({ securities: { columns: ['A'], data: [{}] } }, 'securities')).toThrow(/not an array/);
  });
});

describe('parseMoexShares on the 2024-02-15 capture', () => {
  const doc = fixture();

  it('takes one row per security per board, with the board counts of the capture', () => {
    // TQBR 247 and TQPI 15 rows (reference doc); no SECID is on both.
    expect(parseMoexShares(doc, { boards: ['TQBR'] })).toHaveLength(247);
    expect(parseMoexShares(doc, { boards: ['TQPI'] })).toHaveLength(15);
    const main = parseMoexShares(doc);
    expect(main).toHaveLength(262);
    expect(new Set(main.map((q) => q.secid)).size).toBe(262);
    expect(main.filter((q) => q.board === 'TQPI').map((q) => q.secid)).toEqual(
      expect.arrayContaining(['ELTZ', 'GAZA', 'GAZAP', 'HMSG', 'LIFE', 'LPSB', 'PAZA', 'UWGN']),
    );
    const secTypes = (board: string, t: string) => main.filter((q) => q.board === board && q.secType === t).length;
    expect([secTypes('TQBR', '1'), secTypes('TQBR', '2'), secTypes('TQBR', 'D')]).toEqual([188, 47, 12]);
  });

  it('reads SBER on TQBR from the columns of both blocks', () => {
    const sber = parseMoexShares(doc).find((q) => q.secid === 'SBER')!;
    expect(sber).toMatchObject({
      board: 'TQBR',
      isin: 'RU0009029540',
      name: 'Сбербанк России ПАО ао',
      shortName: 'Сбербанк',
      latinName: 'Sberbank',
      secType: '1',
      lotSize: 10,
      listLevel: 1,
      issueSize: 21586948000,
      currency: 'RUB',
      price: 289.83,
      priceSource: 'LAST',
      priceChangePercentage24h: 0.27,
      marketCap: 6260214920000,
      tradingVolume: 5716579901,
      tradingStatus: 'T',
    });
    // Same values as the raw cells, looked up by hand.
    expect(sber.price).toBe(cell(doc, 'marketdata', 'SBER', 'TQBR', 'LAST'));
    expect(sber.marketCap).toBe(cell(doc, 'marketdata', 'SBER', 'TQBR', 'ISSUECAPITALIZATION'));
    expect(sber.tradingVolume).toBe(cell(doc, 'marketdata', 'SBER', 'TQBR', 'VALTODAY'));
    // ISSUESIZE × a current price = capitalisation: 21,586,948,000 × 290.00
    expect(sber.issueSize! * 290).toBe(sber.marketCap);
    // UPDATETIME 17:54:06 on SYSTIME's date 2024-02-15, Moscow (UTC+3).
    expect(sber.quoteTime?.toISOString()).toBe('2024-02-15T14:54:06.000Z');
  });

  it('joins on (SECID, BOARDID): SBER of TQBR does not take the SMAL board values', () => {
    const smal = parseMoexShares(doc, { boards: ['SMAL'] }).find((q) => q.secid === 'SBER')!;
    const tqbr = parseMoexShares(doc, { boards: ['TQBR'] }).find((q) => q.secid === 'SBER')!;
    expect(smal.lotSize).toBe(1);
    expect(smal.price).toBe(cell(doc, 'marketdata', 'SBER', 'SMAL', 'LAST'));
    expect(smal.tradingVolume).toBe(cell(doc, 'marketdata', 'SBER', 'SMAL', 'VALTODAY'));
    expect(smal.tradingVolume).not.toBe(tqbr.tradingVolume);
    // A security on several requested boards is taken from the first board listed.
    expect(parseMoexShares(doc, { boards: ['SMAL', 'TQBR'] }).find((q) => q.secid === 'SBER')!.board).toBe('SMAL');
    expect(parseMoexShares(doc, { boards: ['TQBR', 'SMAL'] }).find((q) => q.secid === 'SBER')!.board).toBe('TQBR');
  });

  it('falls back to LCURRENTPRICE when nothing traded today (LAST null)', () => {
    const quotes = parseMoexShares(doc);
    const noTrades = quotes.filter((q) => q.board === 'TQBR' && q.priceSource !== 'LAST').map((q) => q.secid).sort();
    // The reference doc lists these as not traded on 2024-02-15.
    expect(noTrades).toEqual(['ACKO', 'GAZC', 'GAZS', 'GAZT', 'MGNZ', 'TRNFP']);
    const trnfp = quotes.find((q) => q.secid === 'TRNFP')!;
    expect(cell(doc, 'marketdata', 'TRNFP', 'TQBR', 'LAST')).toBeNull();
    expect(trnfp).toMatchObject({ price: 166650, priceSource: 'LCURRENTPRICE', tradingVolume: 0, priceChangePercentage24h: 0 });
  });

  it('keeps depositary receipts without capitalisation as null', () => {
    const drs = parseMoexShares(doc, { boards: ['TQBR'] }).filter((q) => q.secType === 'D');
    expect(drs).toHaveLength(12);
    expect(drs.every((q) => q.marketCap === null)).toBe(true);
    expect(drs.find((q) => q.secid === 'OZON')).toMatchObject({ isin: 'US69269L1044', price: 3140.5 });
  });

  it('tolerates reordered, extra and missing columns', () => {
    const reshaped = {
      ...doc,
      securities: reshape(doc.securities!, { drop: ['REMARKS', 'SETTLEDATE'] }),
      marketdata: reshape(doc.marketdata!, { drop: ['LCURRENTPRICE', 'TRENDISSUECAPITALIZATION'] }),
    };
    const before = parseMoexShares(doc);
    const after = parseMoexShares(reshaped);
    expect(after).toHaveLength(before.length);
    // Nothing that relied on the dropped columns changes.
    expect(after.find((q) => q.secid === 'SBER')).toEqual(before.find((q) => q.secid === 'SBER'));
    // Without LCURRENTPRICE the chain goes on to MARKETPRICE (TRNFP: 166950 in the capture).
    expect(after.find((q) => q.secid === 'TRNFP')).toMatchObject({ price: 166950, priceSource: 'MARKETPRICE' });
  });

  it('needs SECID and BOARDID to join', () => {
    const broken = { ...doc, marketdata: reshape(doc.marketdata!, { drop: ['BOARDID'] }) };
    expect(() => parseMoexShares(broken)).toThrow(/BOARDID/);
  });

  it('keeps securities without a marketdata row, priced from PREVPRICE', () => {
    const withoutMarket = { securities: doc.securities };
    const sber = parseMoexShares(withoutMarket).find((q) => q.secid === 'SBER')!;
    expect(sber).toMatchObject({ price: 289.06, priceSource: 'PREVPRICE', marketCap: null, quoteTime: null });
  });
});

describe('pickPrice', () => {
  const market = (m: IssRow) => m;
  it('walks LAST → LCURRENTPRICE → MARKETPRICE → PREVPRICE → PREVLEGALCLOSEPRICE', () => {
    const sec = { PREVPRICE: 4, PREVLEGALCLOSEPRICE: 5 };
    expect(pickPrice(market({ LAST: 1, LCURRENTPRICE: 2, MARKETPRICE: 3 }), sec)).toEqual({ price: 1, source: 'LAST' });
    expect(pickPrice(market({ LAST: null, LCURRENTPRICE: 2, MARKETPRICE: 3 }), sec)).toEqual({ price: 2, source: 'LCURRENTPRICE' });
    expect(pickPrice(market({ LAST: null, LCURRENTPRICE: null, MARKETPRICE: 3 }), sec)).toEqual({ price: 3, source: 'MARKETPRICE' });
    expect(pickPrice(market({ LAST: null }), sec)).toEqual({ price: 4, source: 'PREVPRICE' });
    expect(pickPrice(market({}), { PREVPRICE: null, PREVLEGALCLOSEPRICE: 5 })).toEqual({ price: 5, source: 'PREVLEGALCLOSEPRICE' });
    expect(pickPrice(undefined, {})).toBeNull();
  });

  it('treats zero and non-numbers as missing', () => {
    expect(pickPrice({ LAST: 0, LCURRENTPRICE: '12.5' }, {})).toEqual({ price: 12.5, source: 'LCURRENTPRICE' });
    expect(pickPrice({ LAST: 'n/a', LCURRENTPRICE: -1 }, { PREVPRICE: 7 })).toEqual({ price: 7, source: 'PREVPRICE' });
  });
});

describe('cell helpers', () => {
  it('normalises SUR to RUB', () => {
    expect(normalizeCurrency('SUR')).toBe('RUB');
    expect(normalizeCurrency('usd')).toBe('USD');
    expect(normalizeCurrency('')).toBeNull();
    expect(normalizeCurrency(null)).toBeNull();
  });

  it('reads numbers, including those above 2^31', () => {
    expect(issNumber(21586948000)).toBe(21586948000);
    expect(issNumber('0.27')).toBe(0.27);
    expect(issNumber('')).toBeNull();
    expect(issNumber(null)).toBeNull();
  });

  it('dates the quote in Moscow time, a late UPDATETIME belonging to the previous day', () => {
    expect(quoteTime({ SYSTIME: '2024-02-15 18:09:06', UPDATETIME: '17:54:06' })?.toISOString()).toBe('2024-02-15T14:54:06.000Z');
    expect(quoteTime({ SYSTIME: '2024-02-16 00:05:00', UPDATETIME: '23:50:00' })?.toISOString()).toBe('2024-02-15T20:50:00.000Z');
    expect(quoteTime({ SYSTIME: '2024-02-15 10:15:54' })?.toISOString()).toBe('2024-02-15T07:15:54.000Z');
    expect(quoteTime({ UPDATETIME: '17:54:06' })).toBeNull();
  });

  it('moves UPDATETIME to the previous day only when midnight was crossed, not for a second of clock jitter', () => {
    expect(quoteTime({ SYSTIME: '2024-05-02 12:00:00', UPDATETIME: '12:00:01' })?.toISOString()).toBe('2024-05-02T09:00:01.000Z');
    expect(quoteTime({ SYSTIME: '2024-05-02 12:00:00', UPDATETIME: '12:04:00' })?.toISOString()).toBe('2024-05-02T09:04:00.000Z');
    expect(quoteTime({ SYSTIME: '2024-05-02 00:00:10', UPDATETIME: '23:59:59' })?.toISOString()).toBe('2024-05-01T20:59:59.000Z');
  });

  it('takes only values the typed columns can hold: whole counts in range, real dates, ISIN-shaped ISINs', () => {
    expect(issInteger(10, 1, 2_147_483_647)).toBe(10);
    expect(issInteger(0.5, 1, 2_147_483_647)).toBeNull();
    expect(issInteger(5_000_000_000, 1, 2_147_483_647)).toBeNull();
    expect(issInteger('40000', 0, 32_767)).toBeNull();
    expect(issDate('2024-02-29')).toBe('2024-02-29');
    expect(issDate('2024-02-30')).toBeNull();
    expect(issDate('2023-02-29')).toBeNull();
    expect(issDate('0000-00-00')).toBeNull();
    expect(issDate('2024-2-3')).toBeNull();
    expect(issIsin('RU0009029540')).toBe('RU0009029540');
    expect(issIsin(' us0004026250 ')).toBe('US0004026250');
    expect(issIsin('RU0009029540'.repeat(500))).toBeNull();
    expect(issIsin('RU00090295')).toBeNull();
    expect(issNonNegative(0)).toBe(0);
    expect(issNonNegative(-5)).toBeNull();
  });
});

describe('issSecid', () => {
  it('takes a SECID of up to MAX_SECID_LENGTH characters without whitespace or control characters', () => {
    expect(issSecid('SBER')).toBe('SBER');
    expect(issSecid('GLDRUB_TOM')).toBe('GLDRUB_TOM');
    expect(issSecid('A'.repeat(MAX_SECID_LENGTH))).toBe('A'.repeat(MAX_SECID_LENGTH));
    expect(issSecid('A'.repeat(MAX_SECID_LENGTH + 1))).toBeNull();
    expect(issSecid('SB ER')).toBeNull();
    expect(issSecid('SB\u0000ER')).toBeNull();
    expect(issSecid(42)).toBe('42');
    expect(issSecid(null)).toBeNull();
  });
});
