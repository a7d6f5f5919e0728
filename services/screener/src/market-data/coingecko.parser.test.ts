import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CoinGeckoFormatError, parseCoinMarkets } from './coingecko.parser.js';

const fixture = () =>
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'coingecko', 'coins-markets.json'), 'utf8')) as Record<string, unknown>[];

describe('parseCoinMarkets', () => {
  it('reads the real response', () => {
    const raw = fixture();
    const { quotes, skipped } = parseCoinMarkets(raw);
    expect(skipped).toEqual([]);
    expect(quotes.map((q) => q.id)).toEqual(raw.map((c) => c.id));
    const btc = quotes.find((q) => q.id === 'bitcoin')!;
    expect(btc).toMatchObject({ symbol: 'BTC', name: 'Bitcoin', price: raw[0]!.current_price, priceChangePercentage24h: raw[0]!.price_change_percentage_24h });
    // Not requested in the capture: no 7-day change.
    expect(btc.priceChangePercentage7d).toBeNull();
    expect(btc.lastUpdated?.toISOString()).toBe('2023-01-08T16:49:40.132Z');
  });

  it('takes the *_in_currency fields when asked for, exponent notation included', () => {
    const [btc] = fixture();
    const { quotes } = parseCoinMarkets([{ ...btc, current_price: 3.2014e-8, price_change_percentage_7d_in_currency: -4.5, price_change_percentage_24h_in_currency: 0.5 }]);
    expect(quotes[0]).toMatchObject({ price: 3.2014e-8, priceChangePercentage7d: -4.5, priceChangePercentage24h: 0.5 });
  });

  it('rejects error objects and skips coins without a price', () => {
    expect(() => parseCoinMarkets({ status: { error_code: 429, error_message: "You've exceeded the Rate Limit" } })).toThrow(CoinGeckoFormatError);
    const [btc] = fixture();
    expect(parseCoinMarkets([{ ...btc, current_price: null }]).skipped).toEqual([{ id: 'bitcoin', reason: 'no current_price' }]);
  });
});
