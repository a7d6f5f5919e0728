import { setFlagsFromString } from 'node:v8';

/** What the alerts service lets its old generation grow by between full collections (`ALERTS_HEAP_GROWING_PERCENT`). */
export const DEFAULT_HEAP_GROWING_PERCENT = 300;

/**
 * Lets V8's old generation grow by `percent` of what survived the last full collection before the next one
 * (0 leaves V8's own, dynamic factor). Why: the candidate index keeps a large heap live for a million
 * notifications (220 MB when this was measured, ~140 MB since its entries are slots), each batch promotes
 * tens of MB, and V8 sized the next limit ~1.2× the live heap, so a full collection started in every second
 * or third batch and its concurrent marking (~250 ms of CPU then) competed with the batch for the two cores.
 * With room to grow, full collections come from V8's memory reducer while the service idles between batches
 * (docs/decisions/0025-alerts-candidate-index.md). The flag is read whenever V8 computes a limit, so setting it after start
 * takes effect from the next one.
 */
export function allowHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`);
}
