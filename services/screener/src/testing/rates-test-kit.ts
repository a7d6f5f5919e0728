import type { AssetType, RateChange } from '@invest/contracts';
import type { Db, Logger } from '@invest/platform';
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
