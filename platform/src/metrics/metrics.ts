import { Counter, Gauge, Histogram, register } from 'prom-client';

/**
 * Get-or-create over prom-client's default registry: a module imported by several app instances in one
 * process (tests start several services in one process) registers each name once, and every caller gets the
 * same metric. Names are agreed in one list (issue 36); services use these too for their own metrics.
 */
export function counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter<L>({ name, help, labelNames });
}

export function gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
  return (register.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge<L>({ name, help, labelNames });
}

export function histogram<L extends string = never>(name: string, help: string, labelNames: readonly L[] = [], buckets?: number[]): Histogram<L> {
  return (register.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram<L>({ name, help, labelNames, ...(buckets ? { buckets } : {}) });
}

/** Seconds since the epoch, the unit of every `*_timestamp_seconds` gauge. */
export const epochSeconds = (ms: number = Date.now()): number => ms / 1000;
