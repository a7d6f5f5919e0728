import { type AssetType, MarketEventTypes, type RateChange, ratesStreamName, ratesUpdatedV1Schema } from '@invest/contracts';
import type { Tx } from '@invest/platform/db/database';
import { type RecordedEvent, appendToStream } from '@invest/platform/event-store/event-store';
import { lockKey } from '@invest/platform/jobs/advisory-lock';
import { type Logger, createLogger } from '@invest/platform/logging/logger';
import { eventSubject } from '@invest/contracts';

/**
 * Most rates one RatesUpdated event carries. A batch with more changes is recorded as several events, so a
 * message stays well below NATS' default 1 MB payload limit (~150 bytes per rate).
 */
export const MAX_RATES_PER_EVENT = 4000;

/** Every transaction that writes rates takes this lock first: writers never interleave, events keep rate order. */
export const RATES_WRITE_LOCK = lockKey('screener:rates-write');

export async function lockRateWrites(tx: Tx): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1::bigint)', [RATES_WRITE_LOCK.toString()]);
}

/** Event store stream of the rate events of one asset type. */
export const ratesStream = ratesStreamName;

let defaultLogger: Logger | undefined;

/**
 * A rate or change that is not a finite number (NaN, ±Infinity: e.g. a stored numeric beyond a double's range,
 * as a custom asset's day change against a close stored before the price minimum) is sent as null, "unknown",
 * and logged. The event schema rejects such numbers, which would otherwise fail the writer's whole transaction.
 */
function finiteChange(change: RateChange, source: string, logger: Logger): RateChange {
  let out = change;
  for (const field of ['rate', 'priceChangePercentage24h'] as const) {
    const v = change[field];
    if (v === null || Number.isFinite(v)) continue;
    logger.warn({ source, assetType: change.assetType, assetId: change.assetId, ticker: change.ticker, field, value: String(v) }, 'rate not finite; published as null');
    out = { ...out, [field]: null };
  }
  return out;
}

/**
 * Records the changed rates of one batch as `RatesUpdated` v1, inside the caller's transaction (the one that
 * wrote the rates), after `lockRateWrites`. Returns the number of events (0 when nothing changed). Non-finite
 * numbers are published as null and logged (`logger`, the service's logger when not given).
 */
export async function recordRatesUpdated(
  tx: Tx,
  assetType: AssetType,
  source: string,
  changes: readonly RateChange[],
  logger: Logger = (defaultLogger ??= createLogger('screener')),
): Promise<number> {
  if (changes.length === 0) return 0;
  const finite = changes.map((c) => finiteChange(c, source, logger));
  const events = [];
  for (let i = 0; i < finite.length; i += MAX_RATES_PER_EVENT) {
    const data = ratesUpdatedV1Schema.parse({ version: 1, source, rates: finite.slice(i, i + MAX_RATES_PER_EVENT) });
    events.push({ type: MarketEventTypes.RatesUpdated, data });
  }
  await appendToStream(tx, ratesStream(assetType), events, 'any');
  return events.length;
}

const PUBLIC_TYPES = new Set<string>([MarketEventTypes.RatesUpdated, MarketEventTypes.AssetUpdated, MarketEventTypes.AssetDeleted]);

/** Relay routing of the screener's events: RatesUpdated, AssetUpdated, AssetDeleted go to `market.events.<Type>`; nothing else is public. */
export function screenerEventSubject(event: RecordedEvent): string | null {
  return PUBLIC_TYPES.has(event.type) ? eventSubject('market', event.type) : null;
}
