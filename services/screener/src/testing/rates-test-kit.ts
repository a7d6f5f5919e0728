import type { AssetType, RateChange } from '@invest/contracts';
import type { Db, Logger } from '@invest/platform';
import { writeRateBatch } from '../rates/rate-writer.js';
import { lockRateWrites, recordRatesUpdated } from '../rates/rates-updated.recorder.js';

/**
 * For other packages' tests: records one `RatesUpdated` batch exactly as the screener's rate writer does (its
 * lock, its recorder, in one transaction), so the screener's relay publishes it to MARKET_EVENTS. The rates
 * are given as they would be published (any `asOf`, including stale ones); the assets table is not touched.
 */
export async function recordRatesForTest(db: Db, assetType: AssetType, source: string, changes: readonly RateChange[], logger?: Logger): Promise<number> {
  return db.transaction(async (tx) => {
    await lockRateWrites(tx);
    return recordRatesUpdated(tx, assetType, source, changes, logger);
  });
}

/** One catalogue asset a test adds (`addCatalogAssetsForTest`). */
export interface TestCatalogAsset {
  ticker: string;
  name: string;
  shortName?: string;
  latinName?: string;
  isin?: string;
  currency: string;
  rate: number;
  change24h?: number;
  /** A token's CoinGecko id (its provider key); the lower-cased ticker when not given. */
  coinId?: string;
}

/**
 * For other packages' tests: adds assets of a market type (bond, etf, future, currency, token) to the catalogue
 * the way a full `get:assetRates` run creates new listings (the same rate writer: the asset, its rate and one
 * RatesUpdated), without a provider. Returns each ticker's asset id.
 */
export async function addCatalogAssetsForTest(db: Db, assetType: Exclude<AssetType, 'share' | 'custom_asset'>, assets: readonly TestCatalogAsset[], logger?: Logger): Promise<Record<string, number>> {
  const asOf = new Date();
  await writeRateBatch(
    db,
    {
      assetType,
      source: 'test:catalog',
      insertMissing: true,
      items: assets.map((a) => ({
        key: assetType === 'token' ? (a.coinId ?? a.ticker.toLowerCase()) : a.ticker,
        ticker: a.ticker,
        name: a.name,
        shortName: a.shortName ?? null,
        latinName: a.latinName ?? null,
        isin: a.isin ?? null,
        currency: a.currency,
        rate: a.rate,
        priceSource: 'test',
        priceChangePercentage24h: a.change24h ?? 0,
        asOf,
      })),
    },
    { marketTz: 'Europe/Moscow', ...(logger ? { logger } : {}), now: asOf },
  );
  const rows = await db.query<{ id: string; ticker: string }>('select id::text, ticker from assets where type = $1 and ticker = any($2::text[])', [assetType, assets.map((a) => a.ticker)]);
  return Object.fromEntries(rows.map((r) => [r.ticker, Number(r.id)]));
}
