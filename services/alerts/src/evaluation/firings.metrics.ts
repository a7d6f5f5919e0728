import type { FiringType } from '@invest/contracts';
import { counter, histogram } from '@invest/platform/metrics/metrics';

const firings = counter('invest_alerts_firings_total', 'Firings committed to the inbox, by type (price notifications by event or sweep, account notices).', ['type']);

const rateToFiring = histogram(
  'invest_alerts_rate_to_firing_seconds',
  "From a RatesUpdated event's recordedAt to the commit of each firing it caused.",
  [],
  // The target is 200 ms at p99; a stalled consumer shows in the upper buckets.
  [0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60],
);

/** Counts committed firings: one increment per type present, not per firing (a chunk holds hundreds). */
export function countFirings(committed: readonly { type: FiringType }[]): void {
  const byType = new Map<FiringType, number>();
  for (const f of committed) byType.set(f.type, (byType.get(f.type) ?? 0) + 1);
  for (const [type, n] of byType) firings.inc({ type }, n);
}

/** Each of `count` firings committed now, caused by a rate recorded at `recordedAtMs` (epoch ms). */
export function observeRateToFiring(recordedAtMs: number, count: number): void {
  const seconds = Math.max(0, Date.now() - recordedAtMs) / 1000;
  for (let i = 0; i < count; i++) rateToFiring.observe(seconds);
}
