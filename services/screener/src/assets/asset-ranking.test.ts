import { describe, expect, it } from 'vitest';
import { MatchTier, matchTier, normalizeSearchText, rankAssets, type RankableAsset, wordsOf } from './asset-ranking.js';

let nextId = 1;
const asset = (type: RankableAsset['type'], ticker: string, name: string, more: Partial<RankableAsset> = {}): RankableAsset => ({ id: nextId++, type, ticker, name, ...more });

// Names as MOEX ISS gives them (SECNAME, SHORTNAME, LATNAME), plus other types and a custom asset.
const GAZP = asset('share', 'GAZP', '"Газпром" (ПАО) ао', { shortName: 'ГАЗПРОМ ао', latinName: 'Gazprom', isin: 'RU0007661625' });
const SIBN = asset('share', 'SIBN', 'Газпром нефть ПАО ао', { shortName: 'Газпрнефть', latinName: 'Gazprom neft', isin: 'RU0009062467' });
const SBER = asset('share', 'SBER', 'Сбербанк России ПАО ао', { shortName: 'Сбербанк', latinName: 'Sberbank', isin: 'RU0009029540' });
const SBERP = asset('share', 'SBERP', 'Сбербанк России ПАО ап', { shortName: 'Сбербанк-п', latinName: 'Sberbank (pref)' });
const SBER_BOND = asset('bond', 'RU000A106K43', 'Сбербанк ПАО 001Р-SBER44', { shortName: 'Сбер Sb44R', latinName: 'Sberbank 001P-SBER44', isin: 'RU000A106K43' });
const SBMX = asset('etf', 'SBMX', 'Первая - Фонд Топ Российских акций', { latinName: 'First - Top Russian Shares Fund' });
const GAZ_BOND = asset('bond', 'RU000A0JXN05', 'ГазпромКапитал ООО 04', { shortName: 'ГазКапОб4' });
const PROMBANK = asset('share', 'PSBR', 'Промсвязьбанк ПАО ао', { latinName: 'Promsvyazbank' });
const USD = asset('currency', 'USD000UTSTOM', 'USDRUB_TOM - USD/РУБ', { shortName: 'USDRUB_TOM' });
const BTC = asset('token', 'BTC', 'Bitcoin');
const SILVER = asset('future', 'SVH4', 'Фьючерсный контракт SILV-3.24', { shortName: 'SILV-3.24' });
const FIR = asset('custom_asset', 'ЁЛКА', 'Ёлочный базар');

const ALL = [SBMX, USD, SBER_BOND, PROMBANK, BTC, SIBN, SBERP, GAZ_BOND, SILVER, FIR, SBER, GAZP];
const tickers = (search: string | undefined, among: readonly RankableAsset[] = ALL) => rankAssets(among, search).map((a) => a.ticker);

describe('rankAssets', () => {
  it('puts the exact ticker first: gazp finds GAZP before SIBN (Gazprom neft), in any case', () => {
    expect(tickers('gazp')).toEqual(['GAZP', 'SIBN']);
    expect(tickers('GAZP')).toEqual(['GAZP', 'SIBN']);
    expect(tickers(' Gazp ')).toEqual(['GAZP', 'SIBN']);
    expect(matchTier(GAZP, 'gazp')).toBe(MatchTier.Exact);
    expect(matchTier(SIBN, 'gazp')).toBe(MatchTier.NameWords);
  });

  it('then tickers that start with the search, shorter first, before names that contain it', () => {
    expect(tickers('sber')).toEqual(['SBER', 'SBERP', 'RU000A106K43']);
    expect(tickers('sbe')).toEqual(['SBER', 'SBERP', 'RU000A106K43']);
    // SBMX starts with "sb" and is a ticker prefix; the Sberbank names only have words that start with it.
    expect(tickers('sb').slice(0, 3)).toEqual(['SBER', 'SBMX', 'SBERP']);
    expect(matchTier(SBERP, 'sber')).toBe(MatchTier.TickerPrefix);
  });

  it('finds name words in Cyrillic and Latin, every word of the search, in any order', () => {
    expect(tickers('газпром')).toEqual(['GAZP', 'SIBN', 'RU000A0JXN05']);
    expect(tickers('ГАЗПРОМ НЕФТЬ')).toEqual(['SIBN']);
    expect(tickers('нефть газпром')).toEqual(['SIBN']);
    expect(tickers('gazprom neft')).toEqual(['SIBN']);
    expect(tickers('сбербанк ап')).toEqual(['SBERP']);
    expect(tickers('bitc')).toEqual(['BTC']);
    // A word prefix beats a match inside a word: "пром" starts Промсвязьбанк, but is only inside Газпром.
    expect(tickers('пром')).toEqual(['PSBR', 'GAZP', 'SIBN', 'RU000A0JXN05']);
    expect(matchTier(GAZP, 'пром')).toBe(MatchTier.Contains);
  });

  it('reads ё as е both ways', () => {
    expect(tickers('елка')).toEqual(['ЁЛКА']);
    expect(tickers('ЁЛОЧНЫЙ')).toEqual(['ЁЛКА']);
    expect(matchTier(FIR, 'елка')).toBe(MatchTier.Exact);
  });

  it('matches an ISIN exactly or in part, and leaves out what does not match', () => {
    expect(tickers('RU0009062467')).toEqual(['SIBN']);
    expect(tickers('ru000a106')).toEqual(['RU000A106K43']);
    expect(tickers('USD/РУБ')).toEqual(['USD000UTSTOM']);
    expect(tickers('silv')).toEqual(['SVH4']);
    expect(tickers('nothing like it')).toEqual([]);
    expect(tickers('%')).toEqual([]);
  });

  it('orders equal matches by ticker, then type, then id; without a search everything, in that order', () => {
    const a = asset('bond', 'ABC', 'x');
    const b = asset('share', 'ABC', 'x');
    const c = asset('share', 'ABC', 'x');
    expect(rankAssets([a, c, b], 'abc').map((x) => x.id)).toEqual([b.id, c.id, a.id]);
    expect(tickers(undefined, [SBERP, BTC, GAZP])).toEqual(['BTC', 'GAZP', 'SBERP']);
    expect(tickers('   ', [SBERP, BTC])).toEqual(['BTC', 'SBERP']);
  });
});

describe('search text', () => {
  it('lower-cases, folds ё and splits words in any script', () => {
    expect(normalizeSearchText('ЁЖИК Ёж')).toBe('ежик еж');
    expect(wordsOf('"Газпром" (ПАО) ао')).toEqual(['газпром', 'пао', 'ао']);
    expect(wordsOf('Sberbank 001P-SBER44')).toEqual(['sberbank', '001p', 'sber44']);
  });
});
