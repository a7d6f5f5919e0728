import { type RateChange, ratesWithTrustedTimes } from '@invest/contracts';
import type { Logger } from '../logging/logger.js';

/**
 * The rates of a RatesUpdated event that a consumer may store (`ratesWithTrustedTimes`): times that are ISO 8601
 * instants not dated ahead of the later of the event's recording and `now` (the consumer's clock). The others are
 * logged as skipped (at most 20 named), so the stored rates stay.
 */
export function trustedRatesOf(event: { id: string; recordedAt: string; data: { rates: readonly RateChange[] } }, logger: Logger, now: Date = new Date()): readonly RateChange[] {
  const recordedAt = Date.parse(event.recordedAt);
  const { trusted, untrusted } = ratesWithTrustedTimes(event.data.rates, new Date(Number.isNaN(recordedAt) ? now.getTime() : Math.max(recordedAt, now.getTime())));
  if (untrusted.length > 0) {
    logger.warn(
      { eventId: event.id, count: untrusted.length, rates: untrusted.slice(0, 20).map((r) => ({ assetType: r.assetType, assetId: r.assetId, asOf: r.asOf })) },
      'rates dated ahead of their recording or not dated as ISO 8601 instants; skipped, the stored rates kept',
    );
  }
  return trusted;
}
