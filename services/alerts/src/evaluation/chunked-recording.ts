import type { Db } from '@invest/platform';
import type { CommittedFirings, PriceFiringRecord } from '../delivery/firing-publisher.js';
import type { AlertsEvaluator, EvaluationPlan } from './alerts-evaluator.js';
import { chunkByFeed } from './feed-locks.js';
import { countFirings } from './firings.metrics.js';

/** Firings committed (and published) per transaction: the first leave before the whole batch is written. */
export const DEFAULT_FIRING_CHUNK = 500;
/** Chunks written at once, each in its own transaction (a big batch is bound by writing; Postgres takes another core). */
export const DEFAULT_FIRING_WRITERS = 2;

export interface ChunkedRecordingOptions {
  size?: number;
  writers?: number;
  /** Each chunk once it committed (publish it here: the next chunks are written meanwhile). */
  onCommitted: (committed: CommittedFirings<PriceFiringRecord>) => void;
  /** Phase timings to add to (`firstChunkAt`, `firstCommitAt`, `lastCommitAt`: ms since `t0`; `commit`: summed). */
  timings?: Record<string, number>;
  t0?: number;
}

/**
 * Records a plan's firings in chunks that never share a feed bucket, each in a transaction of its own,
 * `writers` at once, and returns how many fired. A chunk holds its users' feed locks only until it commits, so
 * a big evaluation (an event of thousands of firings, a sweep) never holds every bucket for its whole write.
 * Chunks are disjoint sets of notifications and buckets, so they commit in any order without waiting for each
 * other; a failed one stops the others from taking more and is thrown. What committed stays: its rows are no
 * longer as they were read, and their steps are taken, so a retry (the event redelivered, the next sweep)
 * fires only the rest.
 */
export async function recordInChunks(db: Pick<Db, 'transaction'>, evaluator: AlertsEvaluator, plan: EvaluationPlan, opts: ChunkedRecordingOptions): Promise<number> {
  const timings = opts.timings ?? {};
  const t0 = opts.t0 ?? performance.now();
  const chunks = chunkByFeed(plan.firings, Math.max(1, opts.size ?? DEFAULT_FIRING_CHUNK));
  const firingOf = new Map(plan.firings.map((f) => [f.d.notificationId, f]));
  let fired = 0;
  let next = 0;
  let failed = false;
  const writer = async (): Promise<void> => {
    while (!failed && next < chunks.length) {
      const chunk = chunks[next++]!;
      try {
        timings.firstChunkAt ??= performance.now() - t0;
        let recorded = 0;
        const committed = await db.transaction(async (tx) => {
          const c = await evaluator.record(tx, chunk, plan);
          recorded = performance.now();
          return c;
        });
        timings.commit = (timings.commit ?? 0) + performance.now() - recorded;
        if (!committed) continue;
        fired += committed.firings.length;
        countFirings(committed.firings);
        // At once, with nothing awaited since the commit: a change committed after it (a switch on) reaches
        // the index by a later `refresh`, which must not be undone by this (a review found that deferring
        // this to the last chunk let an event's refresh in between be overwritten).
        evaluator.index.noteFired(committed.firings.map((f) => firingOf.get(f.notificationId)!.next));
        timings.firstCommitAt ??= performance.now() - t0;
        timings.lastCommitAt = performance.now() - t0;
        opts.onCommitted(committed);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const writers = Math.min(Math.max(1, opts.writers ?? DEFAULT_FIRING_WRITERS), chunks.length);
  const done = await Promise.allSettled(Array.from({ length: writers }, writer));
  const failure = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
  if (failure) throw failure.reason;
  return fired;
}
