import type { DeliveryChannel } from '@invest/contracts';
import { counter } from '@invest/platform';

/**
 * What came of one message on one channel when its transaction committed: `sent`; `retried` (a retryable failure,
 * tried again later); `failed` (refused for good, or given up after its last attempt); `skipped` (the channel
 * switched off, the address gone, every firing switched off); `postponed` (quiet hours set since it was sealed, or
 * alerts not saying which firings may go out: it waits, no attempt counted).
 */
export type DeliveryOutcome = 'sent' | 'retried' | 'failed' | 'skipped' | 'postponed';

const outcomes = counter('invest_delivery_outcomes_total', 'Messages handled by the dispatcher, by channel and outcome (sent, retried, failed, skipped, postponed).', ['channel', 'outcome']);

/** Counts the outcomes of one committed sending transaction. */
export function countDeliveryOutcomes(handled: readonly { channel: Exclude<DeliveryChannel, 'in_app'>; outcome: DeliveryOutcome }[]): void {
  for (const h of handled) outcomes.inc({ channel: h.channel, outcome: h.outcome });
}
