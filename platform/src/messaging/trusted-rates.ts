import { type RateChange, ratesNotAhead } from '@invest/contracts';
import type { Logger } from '../logging/logger.js';

/**
 * The rates of a RatesUpdated event that a consumer may store: those not dated ahead of the later of the event's
 * recording and `now` (the consumer's clock; `ratesNotAhead`). The others are logged as skipped (at most 20
 * named), so the stored rates stay.
 */
export function trustedRatesOf(event: { id: string; recordedAt: string; data: { rates: readonly RateChange[] } }, logger: Logger, now: Date = new Date()): readonly RateChange[] {
  const recordedAt = Date.parse(event.recordedAt);
  const { trusted, ahead } = ratesNotAhead(event.data.rates, new Date(Number.isNaN(recordedAt) ? now.getTime() : Math.max(recordedAt, now.getTime())));
  if (ahead.length > 0) {
    logger.warn(
      { eventId: event.id, count: ahead.length, rates: ahead.slice(0, 20).map((r) => ({ assetType: r.assetType, assetId: r.assetId, asOf: r.asOf })) },
      'rates dated ahead of their recording; skipped, the stored rates kept',
    );
  }
  return trusted;
}
