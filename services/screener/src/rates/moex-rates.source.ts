import { countryFromIsin } from '../market-data/country.js';
import type { IssQuote, IssSkip, MoexMarketSpec } from '../market-data/iss-market.parser.js';
import type { RateInput } from './rate-writer.js';

/**
 * Maps parsed ISS quotes to rate inputs. Shares need a category (by SECTYPE, from `share_categories`): main-board
 * rows of other types (fund units on TQPI) are not shares and are skipped with the reason.
 */
export function moexRateInputs(
  spec: MoexMarketSpec,
  quotes: readonly IssQuote[],
  categoryBySecType: ReadonlyMap<string, number>,
  fetchedAt: Date,
): { items: RateInput[]; skipped: IssSkip[] } {
  const items: RateInput[] = [];
  const skipped: IssSkip[] = [];
  for (const q of quotes) {
    const base: RateInput = {
      key: q.secid,
      ticker: q.secid,
      name: q.name,
      shortName: q.shortName,
      latinName: q.latinName,
      isin: q.isin,
      board: q.board,
      currency: q.currency,
      rate: q.rate,
      quotedPrice: q.quotedPrice,
      priceSource: q.priceSource,
      priceChangePercentage24h: q.priceChangePercentage24h,
      asOf: q.quoteTime ?? fetchedAt,
    };
    if (spec.assetType === 'share') {
      const categoryId = q.secType ? categoryBySecType.get(q.secType) : undefined;
      if (categoryId === undefined) {
        skipped.push({ secid: q.secid, board: q.board, reason: `SECTYPE ${q.secType ?? 'null'} is not a share type` });
        continue;
      }
      items.push({
        ...base,
        details: {
          kind: 'share',
          categoryId,
          country: countryFromIsin(q.isin),
          lotSize: q.lotSize,
          listLevel: q.listLevel,
          issueSize: q.issueSize,
          marketCap: q.marketCap ?? null,
          tradingVolume: q.tradingVolume ?? null,
        },
      });
    } else if (spec.assetType === 'bond') {
      items.push({ ...base, details: { kind: 'bond', faceValue: q.faceValue, faceUnit: q.faceUnit, maturityDate: q.maturityDate } });
    } else {
      items.push(base);
    }
  }
  return { items, skipped };
}
