import { AsyncResource } from 'node:async_hooks';
import type { BillingEvent } from '@invest/contracts';
import { appendToStreams, type CommandResult, currentContext, deadlinePassed, type Db, readStreams, type RecordedEvent, type RequestContext, type StreamAppend, type Tx } from '@invest/platform';
import { runBillingCommand } from './billing-commands.js';
import { type BillingCommand, type BillingState, billingDecider, userStream } from './subscription.decider.js';
import { projectBillingEvents } from './subscription.projection.js';

type Result = CommandResult<BillingState, BillingEvent>;

interface Queued {
  command: BillingCommand;
  eventIds: string[];
  ctx: RequestContext | undefined;
  resolve(outcome: Outcome): void;
}

/** What a batch gives one command: its result, the error its decision threw, or "run it on your own". */
type Outcome = { result: Result } | { error: unknown } | 'alone';

/** Commands of one batch at most (one statement's arrays; a burst beyond it waits for the next batch). */
const MAX_BATCH = 200;
/** Batch transactions at once: one fills while the other commits. */
const CONCURRENT_BATCHES = 2;

/**
 * Group commit of billing commands (the Pay webhooks): commands that arrive while a batch transaction is running
 * are decided together in the next one — one read of all their streams, one insert of all their events, their
 * projections, one commit — instead of a transaction of ~10 round trips each. Each is decided exactly as
 * `runBillingCommand` decides it (`billingDecider`, on its user's stream, its event ids making a repeat a no-op;
 * two commands of one user in a batch are decided in arrival order, the second on the state after the first).
 *
 * Anything unusual fails the whole batch: a concurrent writer on one of the streams (a `/api/subscribe`, another
 * instance), an event id stored elsewhere (an unattributed payment), the database. Then it rolls back and every
 * command of it runs alone through `runBillingCommand` in its caller's request, with that path's re-decisions
 * and errors. So a batch changes how many transactions record the payments, never what is recorded.
 */
export class BillingCommandBatches {
  private readonly queue: Queued[] = [];
  private running = 0;
  /** Streams of the running batches. */
  private readonly busy = new Set<string>();

  /**
   * `drain` in the context the batches were created in (the service's boot, no request): a batch serves many
   * requests, so it must not run under the one that happened to start it, whose deadline would end every batch
   * chained after it. Each request's own deadline is checked before its command joins a batch.
   */
  private readonly drainOutsideRequests = AsyncResource.bind(() => this.drain());

  constructor(private readonly db: Db) {}

  async run(command: BillingCommand, eventIds: string[]): Promise<Result> {
    const outcome = await new Promise<Outcome>((resolve) => {
      this.queue.push({ command, eventIds, ctx: currentContext(), resolve });
      this.drainOutsideRequests();
    });
    if (outcome === 'alone') return runBillingCommand(this.db, command, eventIds);
    if ('error' in outcome) throw outcome.error;
    return outcome.result;
  }

  private drain(): void {
    while (this.running < CONCURRENT_BATCHES && this.queue.length > 0) {
      // A stream in a running batch waits for the next one: two batches of ours never race on a stream (a
      // provider's retry of a notification being decided would otherwise fail the other batch on its event id).
      const batch: Queued[] = [];
      const streams = new Set<string>();
      for (let i = 0; i < this.queue.length && batch.length < MAX_BATCH; ) {
        // Past its deadline while it waited: alone, in its request, it is refused as not started (nothing recorded).
        if (deadlinePassed(this.queue[i]!.ctx?.deadline)) {
          this.queue.splice(i, 1)[0]!.resolve('alone');
          continue;
        }
        const stream = userStream(this.queue[i]!.command.userId);
        if (this.busy.has(stream) && !streams.has(stream)) {
          i++;
          continue;
        }
        streams.add(stream);
        batch.push(...this.queue.splice(i, 1));
      }
      if (batch.length === 0) return;
      for (const s of streams) this.busy.add(s);
      this.running++;
      void this.runBatch(batch).finally(() => {
        for (const s of streams) this.busy.delete(s);
        this.running--;
        this.drain();
      });
    }
  }

  private async runBatch(batch: Queued[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = await this.db.transaction((tx) => decideBatch(tx, batch));
    } catch {
      outcomes = batch.map(() => 'alone' as const);
    }
    batch.forEach((q, i) => q.resolve(outcomes[i]!));
  }
}

/** Decides, appends and projects one batch in the caller's transaction; throws on anything that needs one-by-one. */
async function decideBatch(tx: Tx, batch: Queued[]): Promise<Outcome[]> {
  const stored = await readStreams(tx, [...new Set(batch.map((q) => userStream(q.command.userId)))]);
  const streams = new Map<string, { state: BillingState; version: number; ids: Set<string>; append: StreamAppend }>();
  const streamOf = (name: string) => {
    let s = streams.get(name);
    if (!s) {
      const events: RecordedEvent[] = stored.get(name) ?? [];
      const version = events.at(-1)?.streamPosition ?? 0;
      s = {
        state: events.reduce((st, e) => billingDecider.evolve(st, { type: e.type, data: e.data } as BillingEvent), billingDecider.initialState()),
        version,
        ids: new Set(events.map((e) => e.id)),
        append: { streamName: name, expectedVersion: version, events: [] },
      };
      streams.set(name, s);
    }
    return s;
  };

  const outcomes: Outcome[] = [];
  const projections: { event: BillingEvent; streamVersion: number }[] = [];
  for (const q of batch) {
    const s = streamOf(userStream(q.command.userId));
    if (q.eventIds.some((id) => s.ids.has(id))) {
      outcomes.push({ result: { newState: s.state, newEvents: [], nextExpectedVersion: s.version, alreadyApplied: true } });
      continue;
    }
    let decided: BillingEvent[];
    try {
      const d = billingDecider.decide(q.command, s.state);
      decided = Array.isArray(d) ? [...(d as readonly BillingEvent[])] : [d as BillingEvent];
    } catch (error) {
      outcomes.push({ error });
      continue;
    }
    // Odd cases keep the one-by-one path and its errors (more events than ids).
    if (decided.length > q.eventIds.length) throw new Error('billing batch: more events decided than event ids given');
    const metadata = q.ctx ? { correlationId: q.ctx.correlationId, ...(q.ctx.userId ? { userId: q.ctx.userId } : {}) } : {};
    for (const [i, event] of decided.entries()) {
      s.append.events.push({ id: q.eventIds[i]!, type: event.type, data: event.data, metadata });
      s.ids.add(q.eventIds[i]!);
      s.version += 1;
      s.state = billingDecider.evolve(s.state, event);
      projections.push({ event, streamVersion: s.version });
    }
    outcomes.push({ result: { newState: s.state, newEvents: decided, nextExpectedVersion: s.version, alreadyApplied: false } });
  }
  await appendToStreams(tx, [...streams.values()].map((s) => s.append));
  await projectBillingEvents(tx, projections);
  return outcomes;
}
