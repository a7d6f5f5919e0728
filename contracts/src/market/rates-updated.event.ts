import { z } from 'zod';
import { ASSET_TYPES, type AssetType, assetTypeSchema } from '../common/assets.js';

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

/**
 * How far a rate's `asOf` may lie ahead of the time it was recorded (clock skew between us and the provider).
 * A rate dated later is not trusted: "never older over newer" would keep it until its bogus time (2099) and
 * refuse every correct rate meanwhile. The screener skips such quotes against its clock; a consumer skips such
 * rates against the later of the event's `recordedAt` and its own clock (`ratesWithTrustedTimes`), whoever published them.
 */
export const MAX_RATE_TIME_AHEAD_MS = 5 * 60_000;

/** An ISO 8601 instant with its zone, as `Date.toISOString()` writes it (fraction optional, `Z` or `±hh:mm`). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * A batch's rates a consumer may store (`trusted`: the batch itself when all are) and the others (`untrusted`):
 * a trusted `asOf` is an ISO 8601 instant with its zone, dated at most MAX_RATE_TIME_AHEAD_MS after `now` (the
 * later of the event's `recordedAt` and the consumer's clock). Any other text is untrusted too: Postgres reads
 * forms JavaScript does not (`infinity`, `tomorrow`, `20990101T000000Z`), and one of them stored would hold back
 * every correct rate as a date ahead does.
 */
export function ratesWithTrustedTimes(rates: readonly RateChange[], now: Date): { trusted: readonly RateChange[]; untrusted: readonly RateChange[] } {
  const latest = now.getTime() + MAX_RATE_TIME_AHEAD_MS;
  // A batch's rates mostly share their time: each distinct text is read once in a row.
  let text: string | undefined;
  let textTrusted = true;
  const isTrusted = (r: RateChange) => {
    if (r.asOf !== text) {
      text = r.asOf;
      const t = ISO_INSTANT.test(text) ? Date.parse(text) : Number.NaN;
      textTrusted = t <= latest;
    }
    return textTrusted;
  };
  if (rates.every(isTrusted)) return { trusted: rates, untrusted: [] };
  return { trusted: rates.filter(isTrusted), untrusted: rates.filter((r) => !isTrusted(r)) };
}

const ASSET_TYPE_SET: ReadonlySet<string> = new Set(ASSET_TYPES);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * `ratesUpdatedV1Schema.safeParse(data)`, written out by hand: a batch of every asset comes every minute, and
 * the schema pass over its thousands of rates is most of its decoding time. It accepts exactly what the schema
 * accepts and gives the same data (unknown fields dropped); undefined where the schema would refuse (a
 * caller then asks the schema why). `rates-updated.event.test.ts` holds them to each other.
 */
export function readRatesUpdatedV1(data: unknown): RatesUpdatedV1 | undefined {
  if (!isRecord(data) || data.version !== 1 || typeof data.source !== 'string' || !Array.isArray(data.rates) || data.rates.length === 0) return undefined;
  const input: unknown[] = data.rates;
  const rates = new Array<RateChange>(input.length);
  for (let i = 0; i < input.length; i++) {
    const r = input[i];
    if (!isRecord(r)) return undefined;
    const { assetType, assetId, ticker, currency, rate, priceChangePercentage24h, asOf } = r;
    if (typeof assetType !== 'string' || !ASSET_TYPE_SET.has(assetType)) return undefined;
    if (typeof assetId !== 'number' || !Number.isSafeInteger(assetId) || assetId <= 0) return undefined;
    if (typeof ticker !== 'string' || typeof asOf !== 'string') return undefined;
    if (currency !== null && typeof currency !== 'string') return undefined;
    if ((rate !== null && !isNumber(rate)) || (priceChangePercentage24h !== null && !isNumber(priceChangePercentage24h))) return undefined;
    rates[i] = { assetType: assetType as AssetType, assetId, ticker, currency, rate, priceChangePercentage24h, asOf };
  }
  return { version: 1, source: data.source, rates };
}
