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

/**
 * Keeps the latest rate of each asset from a RatesUpdated batch; an older rate (by the provider's time)
 * arriving late never replaces a newer one. Returns the rows that changed.
 */
export async function upsertRates(tx: SqlClient, rates: readonly RateChange[], observedAt: Date): Promise<RateView[]> {
  if (rates.length === 0) return [];
  const rows = await tx.query<RateRow>(
    `insert into latest_rates (asset_type, asset_id, ticker, currency, rate, change_24h, as_of, observed_at)
     select * from unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::timestamptz[], $8::timestamptz[])
     on conflict (asset_type, asset_id) do update set ticker = excluded.ticker, currency = excluded.currency, rate = excluded.rate,
       change_24h = excluded.change_24h, as_of = excluded.as_of, observed_at = excluded.observed_at
     where latest_rates.as_of <= excluded.as_of
     returning asset_type, asset_id::text, ticker, rate, change_24h, as_of, observed_at`,
    [
      rates.map((r) => r.assetType),
      rates.map((r) => r.assetId),
      rates.map((r) => r.ticker),
      rates.map((r) => r.currency),
      rates.map((r) => r.rate),
      rates.map((r) => r.priceChangePercentage24h),
      rates.map((r) => r.asOf),
      rates.map(() => observedAt),
    ],
  );
  return rows.map(toRateView);
}
