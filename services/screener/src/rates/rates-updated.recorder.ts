import { type AssetType, RATES_UPDATED, type RateChange, ratesUpdatedV1Schema } from '@invest/contracts';
import { type RecordedEvent, type Tx, appendToStream, lockKey } from '@invest/platform';
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
export const ratesStream = (type: AssetType) => `rates-${type}`;

/**
 * Records the changed rates of one batch as `RatesUpdated` v1, inside the caller's transaction (the one that
 * wrote the rates), after `lockRateWrites`. Returns the number of events (0 when nothing changed).
 */
export async function recordRatesUpdated(tx: Tx, assetType: AssetType, source: string, changes: readonly RateChange[]): Promise<number> {
  if (changes.length === 0) return 0;
  const events = [];
  for (let i = 0; i < changes.length; i += MAX_RATES_PER_EVENT) {
    const data = ratesUpdatedV1Schema.parse({ version: 1, source, rates: changes.slice(i, i + MAX_RATES_PER_EVENT) });
    events.push({ type: RATES_UPDATED, data });
  }
  await appendToStream(tx, ratesStream(assetType), events, 'any');
  return events.length;
}

/** Relay routing of the screener's events: RatesUpdated goes to `market.events.RatesUpdated`; nothing else is public. */
export function screenerEventSubject(event: RecordedEvent): string | null {
  return event.type === RATES_UPDATED ? eventSubject('market', RATES_UPDATED) : null;
}
