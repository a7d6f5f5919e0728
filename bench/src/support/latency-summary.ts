/** One measured batch: how many notifications it fired and its p99 from the publish (ms). */
export interface BatchLatency {
  firings: number;
  p99Ms: number;
}

/** How a series of batches meets a p99 target, by batch size. */
export interface LatencySummary {
  targetMs: number;
  within: number;
  total: number;
  /**
   * The largest batch such that it and every smaller batch met the target (0 when the smallest did not):
   * "every batch up to N firings". A bigger batch may have met it too; `over` lists the ones that did not.
   */
  allWithinUpTo: number;
  over: BatchLatency[];
}

/** Which batches met `targetMs`, and up to which size all of them did. */
export function summariseLatencies(batches: readonly BatchLatency[], targetMs: number): LatencySummary {
  // Of equal sizes the slowest first: a miss at a size means not every batch of that size met the target.
  const bySize = [...batches].sort((a, b) => a.firings - b.firings || b.p99Ms - a.p99Ms);
  let allWithinUpTo = 0;
  for (const b of bySize) {
    if (b.p99Ms > targetMs) break;
    allWithinUpTo = b.firings;
  }
  const over = bySize.filter((b) => b.p99Ms > targetMs);
  return { targetMs, within: batches.length - over.length, total: batches.length, allWithinUpTo, over };
}

/** The summary as one line of the benchmark's output. */
export function formatLatencySummary(s: LatencySummary): string {
  const over = s.over.length === 0 ? 'none' : s.over.map((b) => `${b.firings.toLocaleString('en-US')} firings ${b.p99Ms.toFixed(0)} ms`).join(', ');
  return (
    `p99 ≤ ${s.targetMs} ms in ${s.within} of ${s.total} measured batches; every batch up to ${s.allWithinUpTo.toLocaleString('en-US')} firings within it; ` +
    `over it: ${over}`
  );
}
