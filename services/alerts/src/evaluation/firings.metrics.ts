import type { FiringType } from '@invest/contracts';
import { Counter, Histogram } from 'prom-client';

// Registered once per process in prom-client's default registry (the metrics server serves it); several app
// instances in one process (tests) share them.
const firings = new Counter({
  name: 'invest_alerts_firings_total',
  help: 'Firings committed to the inbox, by type (price notifications by event or sweep, account notices).',
  labelNames: ['type'] as const,
});

const rateToFiring = new Histogram({
  name: 'invest_alerts_rate_to_firing_seconds',
  help: "From a RatesUpdated event's recordedAt to the commit of each firing it caused.",
  // The target is 200 ms at p99; a stalled consumer shows in the upper buckets.
  buckets: [0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60],
});

/** Counts committed firings: one increment per type present, not per firing (a chunk holds hundreds). */
export function countFirings(committed: readonly { type: FiringType }[]): void {
  if (committed.length === 0) return;
  const first = committed[0]!.type;
  let same = 0;
  let others: Map<FiringType, number> | undefined;
  for (const f of committed) {
    if (f.type === first) same++;
    else (others ??= new Map()).set(f.type, (others.get(f.type) ?? 0) + 1);
  }
  firings.inc({ type: first }, same);
  if (others) for (const [type, n] of others) firings.inc({ type }, n);
}

/** Each of `count` firings committed now, caused by a rate recorded at `recordedAtMs` (epoch ms). */
export function observeRateToFiring(recordedAtMs: number, count: number): void {
  const seconds = Math.max(0, Date.now() - recordedAtMs) / 1000;
  for (let i = 0; i < count; i++) rateToFiring.observe(seconds);
}
