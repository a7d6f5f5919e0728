import { type CountryRef, countryFromIsin } from '../market-data/country.js';
import type { MoexShareQuote } from '../market-data/moex-iss.parser.js';

/** A share as the demo load writes it. */
export interface DemoShare {
  ticker: string;
  board: string;
  isin: string | null;
  name: string;
  shortName: string | null;
  latinName: string | null;
  currency: string;
  currentRate: number | null;
  priceSource: string | null;
  priceChangePercentage24h: number | null;
  rateUpdatedAt: string | null;
  categoryId: number;
  country: CountryRef | null;
  marketCap: number | null;
  tradingVolume: number | null;
  lotSize: number | null;
  listLevel: number | null;
  issueSize: number | null;
}

export interface DemoSharesResult {
  shares: DemoShare[];
  /** Securities of the main boards that are not shares (fund units: SECTYPE B, F, …), or lack a currency. */
  skipped: { secid: string; board: string; reason: string }[];
}

/**
 * Maps parsed MOEX quotes to shares. `categoryBySecType` maps SECTYPE to a share category id (from
 * `share_categories.moex_sec_type`); securities of other types are not shares and are skipped.
 */
export function demoSharesFromQuotes(quotes: readonly MoexShareQuote[], categoryBySecType: ReadonlyMap<string, number>): DemoSharesResult {
  const shares: DemoShare[] = [];
  const skipped: DemoSharesResult['skipped'] = [];
  for (const q of quotes) {
    const categoryId = q.secType ? categoryBySecType.get(q.secType) : undefined;
    if (categoryId === undefined) {
      skipped.push({ secid: q.secid, board: q.board, reason: `SECTYPE ${q.secType ?? 'null'} is not a share type` });
      continue;
    }
    if (!q.currency) {
      skipped.push({ secid: q.secid, board: q.board, reason: 'no currency' });
      continue;
    }
    shares.push({
      ticker: q.secid,
      board: q.board,
      isin: q.isin,
      name: q.name,
      shortName: q.shortName,
      latinName: q.latinName,
      currency: q.currency,
      currentRate: q.price,
      priceSource: q.priceSource,
      priceChangePercentage24h: q.priceChangePercentage24h,
      rateUpdatedAt: q.quoteTime ? q.quoteTime.toISOString() : null,
      categoryId,
      country: countryFromIsin(q.isin),
      marketCap: q.marketCap,
      tradingVolume: q.tradingVolume,
      lotSize: q.lotSize,
      listLevel: q.listLevel,
      issueSize: q.issueSize,
    });
  }
  return { shares, skipped };
}
