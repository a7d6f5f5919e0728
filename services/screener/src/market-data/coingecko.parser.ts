/**
 * CoinGecko `GET /coins/markets` (vs_currency=usd, price_change_percentage=24h,7d): a JSON array of coins.
 * Errors come back as objects, so anything that is not an array is rejected. No I/O here.
 */
export interface CoinQuote {
  /** CoinGecko coin id (`bitcoin`): the token's stable key. */
  id: string;
  /** Upper-cased symbol (`BTC`). */
  symbol: string;
  name: string;
  price: number;
  priceChangePercentage24h: number | null;
  priceChangePercentage7d: number | null;
  marketCap: number | null;
  totalVolume: number | null;
  lastUpdated: Date | null;
}

export class CoinGeckoFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CoinGeckoFormatError';
  }
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

export function parseCoinMarkets(doc: unknown): { quotes: CoinQuote[]; skipped: { id: string; reason: string }[] } {
  if (!Array.isArray(doc)) {
    const detail = doc && typeof doc === 'object' ? JSON.stringify(doc).slice(0, 120) : typeof doc;
    throw new CoinGeckoFormatError(`coins/markets answered ${detail} instead of an array`);
  }
  const quotes: CoinQuote[] = [];
  const skipped: { id: string; reason: string }[] = [];
  const seen = new Set<string>();
  for (const raw of doc) {
    const coin = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const id = str(coin.id);
    if (!id) {
      skipped.push({ id: '?', reason: 'coin without an id' });
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    const price = num(coin.current_price);
    if (price === null || price <= 0) {
      skipped.push({ id, reason: 'no current_price' });
      continue;
    }
    const updated = str(coin.last_updated);
    const at = updated ? new Date(updated) : null;
    quotes.push({
      id,
      symbol: (str(coin.symbol) ?? id).toUpperCase(),
      name: str(coin.name) ?? id,
      price,
      priceChangePercentage24h: num(coin.price_change_percentage_24h_in_currency) ?? num(coin.price_change_percentage_24h),
      priceChangePercentage7d: num(coin.price_change_percentage_7d_in_currency),
      marketCap: num(coin.market_cap),
      totalVolume: num(coin.total_volume),
      lastUpdated: at && !Number.isNaN(at.getTime()) ? at : null,
    });
  }
  return { quotes, skipped };
}
