import type { AssetType, RateChange } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import type { RateView } from '../evaluation/evaluation.types.js';

export interface RateRow {
  asset_type: string;
  asset_id: string;
  ticker: string;
  rate: number | null;
  change_24h: number | null;
  as_of: Date;
  observed_at: Date;
}

export function toRateView(r: RateRow): RateView {
  return {
    assetType: r.asset_type as AssetType,
    assetId: Number(r.asset_id),
    ticker: r.ticker,
    rate: r.rate,
    change24h: r.change_24h,
    asOf: new Date(r.as_of),
    observedAt: new Date(r.observed_at),
  };
}

/** A batch's rate as `upsertRates` gives it back when it became the latest. */
export function rateViewOf(r: RateChange, observedAt: Date): RateView {
  return { assetType: r.assetType, assetId: r.assetId, ticker: r.ticker, rate: r.rate, change24h: r.priceChangePercentage24h, asOf: new Date(r.asOf), observedAt };
}

/**
 * Keeps the latest rate of each asset from a RatesUpdated batch; an older rate (by the provider's time)
 * arriving late never replaces a newer one. Returns the batch's rates that became the latest (as
 * `rateViewOf` gives them: only the keys come back, every minute's batch of thousands is not parsed twice).
 */
export async function upsertRates(tx: SqlClient, rates: readonly RateChange[], observedAt: Date): Promise<RateView[]> {
  if (rates.length === 0) return [];
  // One JSON parameter: binding seven arrays of thousands of elements cost the client more than this whole
  // statement costs Postgres, on the thread the candidates are matched on meanwhile.
  const rows = await tx.query<{ asset_type: string; asset_id: string }>(
    `insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at)
     select "assetType", "assetId", ticker, currency, rate, "priceChangePercentage24h", "asOf", $2
       from json_to_recordset($1::json)
         as r("assetType" text, "assetId" bigint, ticker text, currency text, rate float8, "priceChangePercentage24h" float8, "asOf" timestamptz)
     on conflict (asset_type, asset_id) do update set ticker = excluded.ticker, currency = excluded.currency, rate = excluded.rate,
       change_24h = excluded.change_24h, as_of = excluded.as_of, observed_at = excluded.observed_at
     where latest_rates.as_of <= excluded.as_of
     returning asset_type, asset_id::text`,
    [JSON.stringify(rates.map((r) => ({ assetType: r.assetType, assetId: r.assetId, ticker: r.ticker, currency: r.currency, rate: r.rate, priceChangePercentage24h: r.priceChangePercentage24h, asOf: r.asOf }))), observedAt],
  );
  const stored = new Set(rows.map((r) => `${r.asset_type}:${r.asset_id}`));
  return rates.filter((r) => stored.has(`${r.assetType}:${r.assetId}`)).map((r) => rateViewOf(r, observedAt));
}
