import { z } from 'zod';
import { assetTypeSchema } from '../common/assets.js';

/** One asset's new rate inside a RatesUpdated batch. */
export const rateChangeSchema = z.object({
  assetType: assetTypeSchema,
  assetId: z.number().int().positive(),
  ticker: z.string(),
  currency: z.string().nullable(),
  rate: z.number().nullable(),
  priceChangePercentage24h: z.number().nullable(),
  /** When the provider says the rate was valid (ISO 8601, UTC). */
  asOf: z.string(),
});
export type RateChange = z.infer<typeof rateChangeSchema>;

/**
 * `market.events.RatesUpdated` v1: the rates that changed in one refresh batch. Unchanged rates are not
 * published. Consumers (alerts, portfolios) keep their own copy of the latest rates from it.
 */
export const ratesUpdatedV1Schema = z.object({
  version: z.literal(1),
  /** The job that produced the batch, e.g. `get:assetRates`. */
  source: z.string(),
  rates: z.array(rateChangeSchema).min(1),
});
export type RatesUpdatedV1 = z.infer<typeof ratesUpdatedV1Schema>;
