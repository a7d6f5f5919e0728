import type { Db } from '../db/database.js';
import { runWithContext } from '../context/request-context.js';
import type { Logger } from '../logging/logger.js';
import { epochSeconds } from '../metrics/metrics.js';
import { jobMetrics } from '../metrics/platform-metrics.js';
import { withAdvisoryLock } from './advisory-lock.js';
import { nextRun, type Schedule } from './schedule.js';
import { randomUUID } from 'node:crypto';
import { inSpan, SpanKind, startSpan } from '../tracing/tracing.js';

/** What a job reports; printed as its one-line summary. */
export interface JobSummary {
  fetched: number;
  changed: number;
  skipped: number;
  /** Why items were skipped, or anything else worth one line. */
  notes?: string[];
  [extra: string]: unknown;
}

/** A named job (named as in the spec, e.g. `update:shares-market-stats`) runnable on a schedule or by hand. */
export interface Job {
  name: string;
  schedule?: Schedule;
  /** Options given by hand (`--only_used_assets`) or by the schedule entry. */
  run(args: string[]): Promise<JobSummary>;
}

export type JobOutcome = { status: 'done'; summary: JobSummary; tookMs: number } | { status: 'locked' } | { status: 'failed'; error: unknown; tookMs: number };

const metrics = jobMetrics();

/** A schedule's interval in seconds (a daily one: a day), what an alert compares the last success with. */
export const scheduleIntervalSeconds = (schedule: Schedule): number => ('everyMinutes' in schedule ? schedule.everyMinutes * 60 : 86_400);

/**
 * Runs a job once under a Postgres advisory lock named after it (and its args), so two instances never
 * run the same job at once, and logs one summary line: fetched, changed, skipped, took.
 */
export async function runJob(db: Db, job: Job, args: string[], logger: Logger): Promise<JobOutcome> {
  const lockName = `job:${job.name}${args.length ? ` ${args.join(' ')}` : ''}`;
  // A run is a trace of its own: what it records and what consumers do with that are its spans.
  const span = startSpan(`job ${job.name}`, SpanKind.INTERNAL);
  const failed = (o: JobOutcome) => (o.status === 'failed' ? 'failed' : undefined);
  return inSpan(span, () => runWithContext({ correlationId: `job-${randomUUID()}`, trace: span.spanContext() }, async (): Promise<JobOutcome> => {
    const started = performance.now();
    try {
      const result = await withAdvisoryLock(db, lockName, () => job.run(args));
      const tookMs = Math.round(performance.now() - started);
      if (!result.ran) {
        logger.debug({ job: job.name, args }, `${job.name}: skipped, another instance holds the lock`);
        return { status: 'locked' };
      }
      const s = result.result;
      metrics.lastSuccess.set({ job: job.name }, epochSeconds());
      metrics.duration.observe({ job: job.name }, tookMs / 1000);
      // One line a run that changed something; the rest (every minute's "nothing new") only at debug.
      logger[s.changed > 0 ? 'info' : 'debug'](
        { job: job.name, args, ...s, tookMs },
        `${job.name}: fetched ${s.fetched}, changed ${s.changed}, skipped ${s.skipped}, took ${tookMs} ms`,
      );
      return { status: 'done', summary: s, tookMs };
    } catch (error) {
      const tookMs = Math.round(performance.now() - started);
      metrics.failures.inc({ job: job.name });
      metrics.duration.observe({ job: job.name }, tookMs / 1000);
      logger.error({ job: job.name, args, err: error, tookMs }, `${job.name}: failed after ${tookMs} ms`);
      return { status: 'failed', error, tookMs };
    }
  }), failed);
}

/**
 * A job run by hand (`npm run cmd -- <name>`): runs it as the scheduler does, writes its one-line summary
 * and notes, and returns the process exit code: 0 done (or another instance holds the lock), 1 failed.
 */
export async function runJobCommand(db: Db, job: Job, args: string[], logger: Logger, write: (line: string) => void): Promise<number> {
  const outcome = await runJob(db, job, args, logger);
  if (outcome.status === 'locked') {
    write(`${job.name}: not run, another instance is running it`);
    return 0;
  }
  if (outcome.status === 'failed') {
    write(`${job.name}: failed after ${outcome.tookMs} ms: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
    return 1;
  }
  const s = outcome.summary;
  write(`${job.name}: fetched ${s.fetched}, changed ${s.changed}, skipped ${s.skipped}, took ${outcome.tookMs} ms`);
  for (const note of s.notes ?? []) write(`  - ${note}`);
  return 0;
}

/** Runs registered jobs on their schedules until stopped; a run that is still going is not started twice. */
export class JobScheduler {
  private timers = new Set<NodeJS.Timeout>();
  private running = new Map<string, Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Runs `job` with `args` at every time of `schedule`; with `atStart`, also once right away (rates that
   * move every minute should not wait up to a minute after a start to be fresh).
   */
  schedule(job: Job, args: string[] = [], schedule = job.schedule, opts: { atStart?: boolean } = {}): void {
    if (!schedule) throw new Error(`job ${job.name} has no schedule`);
    const key = `${job.name} ${args.join(' ')}`;
    metrics.interval.set({ job: job.name }, scheduleIntervalSeconds(schedule));
    const fire = () => {
      if (this.stopped || this.running.has(key)) return;
      const p = runJob(this.db, job, args, this.logger).finally(() => this.running.delete(key));
      this.running.set(key, p);
    };
    const arm = () => {
      if (this.stopped) return;
      const at = nextRun(schedule, this.now());
      const t = setTimeout(() => {
        this.timers.delete(t);
        fire();
        arm();
      }, Math.max(0, at.getTime() - this.now().getTime()));
      t.unref?.();
      this.timers.add(t);
    };
    if (opts.atStart) fire();
    arm();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled(this.running.values());
  }
}
