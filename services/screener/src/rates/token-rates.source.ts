import type { CoinQuote } from '../market-data/coingecko.parser.js';
import type { RateInput } from './rate-writer.js';

/** CoinGecko quotes (USD) as rate inputs keyed by coin id. */
export function tokenRateInputs(quotes: readonly CoinQuote[], fetchedAt: Date): RateInput[] {
  return quotes.map((q) => ({
    key: q.id,
    ticker: q.symbol,
    name: q.name,
    currency: 'USD',
    rate: q.price,
    quotedPrice: q.price,
    priceSource: 'coingecko',
    priceChangePercentage24h: q.priceChangePercentage24h,
    priceChangePercentage7d: q.priceChangePercentage7d,
    asOf: q.lastUpdated ?? fetchedAt,
    details: { kind: 'token', marketCap: q.marketCap, totalVolume: q.totalVolume },
  }));
}
