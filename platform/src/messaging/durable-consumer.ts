import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { type BusEvent, busEventSchema, CORRELATION_HEADER, isUnknownEvent, type UnknownEvent } from '@invest/contracts';
import { runWithContext } from '../context/request-context.js';
import type { Db, Tx } from '../db/database.js';
import type { Logger } from '../logging/logger.js';
import { consumerHealthDefaults, ProgressWatch } from '../metrics/consumer-health.js';
import { epochSeconds } from '../metrics/metrics.js';
import { consumerMetrics } from '../metrics/platform-metrics.js';
import { type Bus, EVENT_STREAM_MAX_AGE_MS, retryTransient } from './bus.js';
import { busName } from './bus-prefix.js';
import { readConsumerLag } from './consumer-lag.js';
import { ensureDurable } from './consumer-setup.js';
import { type DeadLetterReason, recordDeadLetter, replayDeadLetters } from './dead-letters.js';
import { applyOnce, inInbox, pruneInbox } from './inbox.js';
import { inSpan, linksTo, SpanKind, spanContextFrom, startSpan, TRACEPARENT } from '../tracing/tracing.js';

export interface DurableConsumerOptions<E extends BusEvent = BusEvent> {
  db: Db;
  bus: Bus;
  /** Stream to read (full name, e.g. from `streamNameOf`). */
  stream: string;
  /** `<consumer>__<purpose>`, e.g. `alerts__rates-updated`; the bus prefix is added. */
  durableName: string;
  /** Subject filter without the bus prefix (one subject: nats-server 2.9 has no multi-filter). */
  filterSubject?: string;
  /**
   * The typed event of an envelope (a stream's `decode<Stream>Event` from contracts), or `UnknownEvent` when
   * this release does not understand its type or version. Default: every well-formed envelope, untyped.
   */
  decode?(event: BusEvent): E | UnknownEvent;
  /** Applies the event's effect inside the transaction that also records it in the inbox. */
  handle(event: E, tx: Tx): Promise<void>;
  logger: Logger;
  /** Server ack wait (default 30 s). A running handler keeps its messages alive with `working()`. */
  ackWaitMs?: number;
  /** Deliveries of a message whose handler keeps failing before it is dead-lettered (default 20). */
  maxDeliver?: number;
  /** Redelivery delay after the first failure of a handler; doubles per delivery up to 60 s (default 500 ms). */
  retryBaseMs?: number;
  /** Delay before an event this release does not understand is offered again (default 5 min). */
  unknownRetryMs?: number;
  /** Most messages held by this consumer at once (one pull request; default 50). */
  batchSize?: number;
  /**
   * Applies several events in one transaction, for a handler whose effects do not depend on the order of
   * messages and that meets many small events at once (delivery's firings: a rate batch fires for hundreds of
   * users). Given, the messages that arrive while a transaction is busy are applied together in the next one
   * (at most `batchSize`; up to `concurrency` transactions at once), with their inbox rows; nothing waits to
   * fill a batch. A batch that fails is applied again message by message with `handle`, so retries and dead
   * letters stay per message. Without it, messages are applied one after the other, in stream order.
   */
  handleMany?(events: E[], tx: Tx): Promise<void>;
  /** Transactions of `handleMany` at once (default 2). */
  concurrency?: number;
  /**
   * How long one pull request waits on the server for messages (default 5 s, at least 1 s). Short, because a
   * pull whose consumer leader died with its cluster node is only noticed after two missed heartbeats: with
   * 30 s the chaos test saw a consumer stall ~30 s after a node loss; an idle consumer pays one small request
   * per pull.
   */
  pullExpiresMs?: number;
  /** Server heartbeat of a waiting pull (default half of `pullExpiresMs`, at least 500 ms); two missed end the pull. */
  idleHeartbeatMs?: number;
  /** Delay before pulling again after a failed pull; doubles per failure up to 30 s (default 250 ms). */
  reconnectBaseMs?: number;
  /** How often replays requested in `es_dead_letters` are looked for (default 10 s). */
  replayPollMs?: number;
  /**
   * How long an inbox row is kept (default: the event streams' 7 days plus one). A redelivery, or a consumer
   * created afresh replaying its stream, brings back nothing older than the stream keeps, so older rows only grow
   * the table. Pruned at most every `inboxPruneEveryMs` (default 1 h), on the dead-letter poll.
   */
  inboxRetentionMs?: number;
  inboxPruneEveryMs?: number;
  /** Re-creates the stream when it is missing (services pass `() => ensureEventStream(bus, ctx)`). */
  ensureStream?(): Promise<unknown>;
  /** How often the lag is read from the server (metrics, stuck detection); default: CONSUMER_LAG_SAMPLE_MS. */
  lagSampleMs?: number;
  /** Lag not shrinking while nothing was processed for this long is `stuck` (see healthProblems); default: CONSUMER_STUCK_AFTER_SECONDS. */
  stuckAfterMs?: number;
  /** Test hook: runs after the effect committed and before the ack. */
  afterCommit?(event: E): Promise<void> | void;
}

export type ProcessOutcome = 'applied' | 'duplicate' | 'unknown' | 'invalid' | 'failed' | 'dead-lettered';

/** What a consumer did since it was created (also in its log lines). */
export interface DurableConsumerStats {
  applied: number;
  duplicates: number;
  /** Distinct events not understood (each logged once), left on the stream for a later reader. */
  unknown: number;
  /** Handler failures (each one redelivered later or dead-lettered). */
  failed: number;
  /** Messages written to `es_dead_letters` (malformed, or failing on every delivery). */
  deadLettered: number;
  /** Pulls that ended in an error and were started again (consumer or stream gone, NATS away, heartbeats missed). */
  restarts: number;
  /** Dead letters applied by a requested replay. */
  replayed: number;
}

/**
 * A durable pull consumer with an inbox: the effect and the inbox row (consumer, message id) commit in
 * one transaction, then the message is acked. A redelivery of a message whose effect committed (a crash
 * before the ack, or a duplicate publish) finds the inbox row and is only acked.
 *
 * It keeps consuming through what a long-running service meets: every pull that ends in an error (the
 * consumer deleted or recreated on the server, the stream recreated, NATS restarting, heartbeats missed)
 * leads to `ensure()` and a new pull, with backoff. Every message it holds is kept alive with `working()`
 * until it is acked, so a slow handler does not burn deliveries. A message that cannot be applied
 * (malformed, or its handler failed `maxDeliver` times) is written to `es_dead_letters` and terminated;
 * an event this release does not understand is neither applied nor recorded: it is offered again later.
 */
export class DurableConsumer<E extends BusEvent = BusEvent> {
  private readonly name: string;
  private readonly decode: (event: BusEvent) => E | UnknownEvent;
  private readonly inFlight = new Set<JsMsg>();
  private readonly unknownLogged = new Set<string>();
  private readonly counts: DurableConsumerStats = { applied: 0, duplicates: 0, unknown: 0, failed: 0, deadLettered: 0, restarts: 0, replayed: 0 };
  private batch: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wakeSleep: (() => void) | undefined;
  private workingTimer: NodeJS.Timeout | undefined;
  private replayTimer: NodeJS.Timeout | undefined;
  private replaying: Promise<number> | undefined;
  /** The dead-letter poll under way (its replay and the inbox prune after it). */
  private polling: Promise<void> | undefined;
  private prunedAt = 0;
  private readonly metrics = consumerMetrics();
  private readonly labels: { stream: string; consumer: string };
  private progress = new ProgressWatch(Number.POSITIVE_INFINITY, Date.now());
  private lag = { messages: 0, oldestAgeSeconds: 0 };
  /** Stream sequences of events not understood, nak'ed for later: lag, but not a stuck consumer. */
  private readonly parked = new Set<number>();
  private lagTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: DurableConsumerOptions<E>) {
    this.name = busName(opts.bus.prefix, opts.durableName);
    this.decode = opts.decode ?? ((event) => event as E);
    this.labels = { stream: opts.stream, consumer: this.name };
  }

  private get maxDeliver(): number {
    return this.opts.maxDeliver ?? 20;
  }

  private get ackWaitMs(): number {
    return this.opts.ackWaitMs ?? 30_000;
  }

  /** The durable's name on the server (bus prefix included). */
  get consumerName(): string {
    return this.name;
  }

  /** Counters since this instance was created. */
  stats(): DurableConsumerStats {
    return { ...this.counts };
  }

  /** What the service's health ping reports (`ServiceResources.problems`): this consumer stuck, or nothing. */
  healthProblems(): string[] {
    const stuckMs = this.progress.stuckForMs(Date.now());
    if (stuckMs === undefined) return [];
    const { messages, oldestAgeSeconds } = this.lag;
    return [`consumer ${this.name} stuck: ${messages} messages waiting (oldest ${Math.round(oldestAgeSeconds)} s), none processed for ${Math.round(stuckMs / 1000)} s`];
  }

  /** Reads the lag from the server into the metrics and the progress watch; exposed for tests. */
  async sampleLag(): Promise<void> {
    const { bus, stream, filterSubject } = this.opts;
    this.lag = await readConsumerLag(bus, stream, this.name, filterSubject);
    this.metrics.lagMessages.set(this.labels, this.lag.messages);
    this.metrics.lagSeconds.set(this.labels, this.lag.oldestAgeSeconds);
    this.progress.sampled(Math.max(0, this.lag.messages - this.parked.size), Date.now());
  }

  private scheduleLagSamples(): void {
    const every = this.opts.lagSampleMs ?? consumerHealthDefaults().lagSampleMs;
    // The first at once, so the series exist from the start.
    const tick = (delayMs: number) => {
      this.lagTimer = setTimeout(() => {
        this.sampleLag()
          .catch((err: unknown) => this.opts.logger.debug({ err, consumer: this.name }, 'consumer: lag sample failed'))
          .finally(() => {
            if (!this.stopping) tick(every);
          });
      }, delayMs);
      this.lagTimer.unref();
    };
    tick(0);
  }

  /** A message is done with (acked or terminated): progress, whatever the outcome. */
  private finished(msg: JsMsg): void {
    const now = Date.now();
    this.progress.processed(now);
    this.parked.delete(msg.seq);
    this.metrics.lastProcessed.set(this.labels, epochSeconds(now));
  }

  /**
   * Creates the durable consumer on the server if missing, or brings its settings up to date (idempotent).
   * A missing stream is re-created with `ensureStream` when given; otherwise this throws until it is back.
   * The consumer has as many replicas as its stream (JETSTREAM_REPLICAS, see ensureStream); transient
   * cluster errors (a leader election) are retried.
   */
  ensure(): Promise<void> {
    const { bus, stream, filterSubject, logger, ensureStream } = this.opts;
    return retryTransient(() =>
      ensureDurable({ bus, stream, name: this.name, ackWaitMs: this.ackWaitMs, logger, ...(filterSubject ? { filterSubject } : {}), ...(ensureStream ? { ensureStream } : {}) }),
    );
  }

  async start(): Promise<void> {
    await this.ensure();
    this.stopping = false;
    this.progress = new ProgressWatch(this.opts.stuckAfterMs ?? consumerHealthDefaults().stuckAfterMs, Date.now());
    this.scheduleLagSamples();
    const every = Math.max(50, Math.floor(this.ackWaitMs / 3));
    this.workingTimer = setInterval(() => {
      for (const msg of this.inFlight) msg.working();
    }, every);
    this.workingTimer.unref();
    this.loop = this.run();
    this.scheduleReplays(0);
  }

  /**
   * Pulls a bounded batch, hands each message to `process` as it arrives, and pulls again once the batch
   * is done. Any failure of a pull (after the nats.js examples: consumer or stream missing, heartbeats
   * missed, NATS away) ends it; the consumer is then ensured again and a new pull started, with backoff.
   */
  private async run(): Promise<void> {
    const { bus, stream, logger } = this.opts;
    let failures = 0;
    let ensureFirst = false;
    const limit = Math.max(1, this.opts.concurrency ?? 2);
    while (!this.stopping) {
      // What the pull handed out: one after the other (`chain`), or in batches by up to `concurrency` workers
      // (`running`), each taking what has arrived (`queued`) when it is free.
      let chain: Promise<unknown> = Promise.resolve();
      const running = new Set<Promise<void>>();
      const queued: JsMsg[] = [];
      const drain = async (): Promise<void> => {
        while (queued.length > 0) await this.processMany(queued.splice(0, this.opts.batchSize ?? 50));
      };
      try {
        if (ensureFirst) await this.ensure();
        const consumer = await bus.js.consumers.get(stream, this.name);
        ensureFirst = false;
        while (!this.stopping) {
          const expires = Math.max(1_000, this.opts.pullExpiresMs ?? 5_000);
          this.batch = await consumer.fetch({
            max_messages: this.opts.batchSize ?? 50,
            expires,
            idle_heartbeat: Math.max(500, this.opts.idleHeartbeatMs ?? expires / 2),
          });
          // stop() may have run while this pull was being set up: it closed the previous one.
          if (this.stopping) await this.batch.close();
          for await (const msg of this.batch) {
            // Held from now on: kept alive until acked even while earlier messages are still being handled.
            this.inFlight.add(msg);
            if (msg.redelivered) this.metrics.redeliveries.inc(this.labels);
            if (!this.opts.handleMany) {
              chain = chain.then(() => this.processHeld(msg));
              continue;
            }
            queued.push(msg);
            if (running.size < limit) {
              const worker: Promise<void> = drain().finally(() => running.delete(worker));
              running.add(worker);
            }
          }
          await Promise.all([chain, ...running]);
          failures = 0;
        }
      } catch (err) {
        await Promise.all([chain, ...running]);
        if (this.stopping) break;
        failures++;
        this.counts.restarts++;
        ensureFirst = true;
        const delay = Math.min(30_000, (this.opts.reconnectBaseMs ?? 250) * 2 ** Math.min(failures - 1, 10));
        logger[failures === 1 || failures % 20 === 0 ? 'warn' : 'debug'](
          { err, consumer: this.name, stream, failures, retryInMs: delay },
          'consumer: pull ended; ensuring the consumer and pulling again',
        );
        await this.sleep(delay);
      }
    }
  }

  private async processHeld(msg: JsMsg): Promise<void> {
    try {
      await this.process(msg);
    } catch (err) {
      this.opts.logger.error({ err, consumer: this.name, seq: msg.seq }, 'consumer: message left unacknowledged after an unexpected error');
    } finally {
      this.inFlight.delete(msg);
    }
  }

  /** The message's envelope and typed event; throws when the message is malformed (not an envelope). */
  private read(msg: JsMsg): { envelope: BusEvent; decoded: E | UnknownEvent } {
    const envelope = busEventSchema.parse(msg.json()) as BusEvent;
    try {
      return { envelope, decoded: this.decode(envelope) };
    } catch (err) {
      // A decoder that throws does not understand the event either; a fixed release will.
      return { envelope, decoded: { unknownEvent: `decode failed: ${String((err as Error)?.message ?? err)}` } };
    }
  }

  /**
   * Applies the ordinary events of `msgs` in one transaction with their inbox rows (`handleMany`), then acks
   * them; what is malformed or not understood, and the whole batch when it fails, goes through `process` one
   * message at a time.
   */
  private async processMany(msgs: JsMsg[]): Promise<void> {
    const { db, logger, durableName } = this.opts;
    const batch = new Map<string, { msg: JsMsg; event: E }[]>();
    const alone: JsMsg[] = [];
    for (const msg of msgs) {
      let decoded: E | UnknownEvent;
      try {
        ({ decoded } = this.read(msg));
      } catch {
        alone.push(msg);
        continue;
      }
      if (isUnknownEvent(decoded)) alone.push(msg);
      else batch.set(decoded.id, [...(batch.get(decoded.id) ?? []), { msg, event: decoded }]);
    }
    try {
      if (batch.size > 0) {
        const firstId = batch.keys().next().value as string;
        // One span for the batch: the first event's trace is its parent, the others' are its links.
        const parents = [...batch.values()].map(([held]) => traceOf(held!.msg, held!.event));
        const span = startSpan(`consume ${this.opts.durableName}`, SpanKind.CONSUMER, spanContextFrom(parents[0]), { 'messaging.batch.message_count': batch.size }, linksTo(parents.slice(1)));
        const fresh = await inSpan(span, () => runWithContext({ correlationId: firstId, trace: span.spanContext() }, () =>
          db.transaction(async (tx) => {
            const rows = await tx.query<{ message_id: string }>(
              'insert into es_inbox (consumer, message_id) select $1, unnest($2::text[]) on conflict do nothing returning message_id',
              [durableName, [...batch.keys()]],
            );
            const applied = rows.map((r) => batch.get(r.message_id)![0]!.event);
            if (applied.length > 0) await this.opts.handleMany!(applied, tx);
            return new Set(rows.map((r) => r.message_id));
          }),
        ));
        for (const [id, held] of batch) if (fresh.has(id)) await this.opts.afterCommit?.(held[0]!.event);
        for (const [id, held] of batch) {
          held.forEach(({ msg }, i) => {
            if (i === 0 && fresh.has(id)) this.counts.applied++;
            else this.counts.duplicates++;
            msg.ack();
            this.finished(msg);
            this.inFlight.delete(msg);
          });
        }
        batch.clear();
      }
    } catch (err) {
      logger.warn({ err, consumer: this.name, messages: batch.size }, 'consumer: a batch failed; applying its messages one at a time');
      for (const held of batch.values()) alone.push(...held.map((h) => h.msg));
    }
    for (const msg of alone) await this.processHeld(msg);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wakeSleep = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** Handles one message end to end; exposed for tests. */
  async process(msg: JsMsg): Promise<ProcessOutcome> {
    const { db, logger } = this.opts;
    let envelope: BusEvent;
    let decoded: E | UnknownEvent;
    try {
      ({ envelope, decoded } = this.read(msg));
    } catch (err) {
      // A malformed message never becomes valid: keep it for inspection instead of redelivering it.
      logger.error({ err, consumer: this.name, subject: msg.subject, seq: msg.seq }, 'consumer: malformed message dead-lettered');
      return this.deadLetter(msg, 'malformed', err, undefined);
    }
    const correlationId = msg.headers?.get(CORRELATION_HEADER) || String(envelope.metadata.correlationId ?? envelope.id);
    const span = startSpan(`consume ${this.opts.durableName}`, SpanKind.CONSUMER, spanContextFrom(traceOf(msg, envelope)), { 'messaging.message.id': envelope.id, 'event.type': envelope.type });
    const failed = (outcome: ProcessOutcome) => (outcome === 'failed' || outcome === 'dead-lettered' ? outcome : undefined);
    return inSpan(span, () => runWithContext({ correlationId, trace: span.spanContext() }, async () => {
      if (isUnknownEvent(decoded)) return this.leaveUnknown(msg, envelope, decoded.unknownEvent);
      try {
        const applied = await db.transaction((tx) => this.applyOnce(decoded, tx));
        await this.opts.afterCommit?.(decoded);
        msg.ack();
        this.finished(msg);
        if (applied) this.counts.applied++;
        else {
          this.counts.duplicates++;
          logger.debug({ consumer: this.name, eventId: envelope.id }, 'consumer: duplicate delivery acked without effect');
        }
        return applied ? 'applied' : 'duplicate';
      } catch (err) {
        this.counts.failed++;
        const attempt = msg.info.deliveryCount;
        if (attempt >= this.maxDeliver) {
          logger.error({ err, consumer: this.name, type: envelope.type, eventId: envelope.id, attempt }, 'consumer: handler failed on every delivery; dead-lettered');
          return this.deadLetter(msg, 'failed', err, envelope);
        }
        logger.error({ err, consumer: this.name, type: envelope.type, eventId: envelope.id, attempt }, 'consumer: handler failed; will retry');
        msg.nak(this.retryDelay(attempt));
        return 'failed';
      }
    }), failed);
  }

  private applyOnce(event: E, tx: Tx): Promise<boolean> {
    return applyOnce(tx, this.opts.durableName, event, this.opts.handle);
  }

  private retryDelay(attempt: number): number {
    return Math.min(60_000, (this.opts.retryBaseMs ?? 500) * 2 ** Math.max(0, attempt - 1));
  }

  /**
   * An event this release does not understand: not recorded in the inbox, so a later reader applies it;
   * not acked, but offered again after `unknownRetryMs` (the server never gives up on it). Logged and
   * counted once per event.
   */
  private async leaveUnknown(msg: JsMsg, event: BusEvent, reason: string): Promise<ProcessOutcome> {
    const { db, logger } = this.opts;
    try {
      // Already applied by an upgraded instance (a rolling deploy): nothing is left to do.
      if (await inInbox(db, this.opts.durableName, event.id)) {
        msg.ack();
        this.finished(msg);
        this.counts.duplicates++;
        return 'duplicate';
      }
    } catch {
      // The database is away: the event is left for later either way.
    }
    if (!this.unknownLogged.has(event.id)) {
      if (this.unknownLogged.size >= 10_000) this.unknownLogged.clear();
      this.unknownLogged.add(event.id);
      this.counts.unknown++;
      logger.warn(
        { consumer: this.name, eventId: event.id, type: event.type, reason, unknownEvents: this.counts.unknown },
        'consumer: event not understood by this release; left for a later reader',
      );
    }
    if (this.parked.size >= 10_000) this.parked.clear();
    this.parked.add(msg.seq);
    msg.nak(this.opts.unknownRetryMs ?? 5 * 60_000);
    return 'unknown';
  }

  private async deadLetter(msg: JsMsg, reason: DeadLetterReason, err: unknown, event: BusEvent | undefined): Promise<ProcessOutcome> {
    try {
      await recordDeadLetter(this.opts.db, this.opts.durableName, msg, reason, err, event);
    } catch (dbErr) {
      // Not kept yet: leave it on the stream and try again later rather than lose it.
      this.opts.logger.error({ err: dbErr, consumer: this.name, seq: msg.seq }, 'consumer: could not dead-letter; will retry');
      msg.nak(this.retryDelay(msg.info.deliveryCount));
      return 'failed';
    }
    // No reason in the +TERM: nats-server before 2.10.4 ignores a +TERM with a reason, and redelivers.
    msg.term();
    this.finished(msg);
    this.counts.deadLettered++;
    this.metrics.deadLetters.inc(this.labels);
    return reason === 'malformed' ? 'invalid' : 'dead-lettered';
  }

  private scheduleReplays(delayMs: number): void {
    if (this.stopping) return;
    this.replayTimer = setTimeout(() => {
      // Kept whole (replay, then prune) so that `stop` waits for a prune under way too.
      this.polling = this.replayDeadLetters()
        .catch((err) => this.opts.logger.error({ err, consumer: this.name }, 'consumer: dead-letter replay failed'))
        .then(() => this.pruneInboxWhenDue())
        .catch((err) => this.opts.logger.warn({ err, consumer: this.name }, 'consumer: inbox prune failed; will retry'))
        .finally(() => {
          this.polling = undefined;
          this.scheduleReplays(this.opts.replayPollMs ?? 10_000);
        });
    }, delayMs);
    this.replayTimer.unref();
  }

  private async pruneInboxWhenDue(): Promise<void> {
    if (Date.now() - this.prunedAt < (this.opts.inboxPruneEveryMs ?? 3_600_000)) return;
    const pruned = await this.pruneInbox();
    this.prunedAt = Date.now();
    if (pruned > 0) this.opts.logger.info({ consumer: this.name, pruned }, 'consumer: old inbox rows pruned');
  }

  /** Deletes this consumer's inbox rows older than `inboxRetentionMs`; returns how many. */
  pruneInbox(): Promise<number> {
    return pruneInbox(this.opts.db, this.opts.durableName, this.opts.inboxRetentionMs ?? EVENT_STREAM_MAX_AGE_MS + 24 * 3_600_000);
  }

  /**
   * Applies the dead letters of this consumer marked for replay (`replay_requested_at`, see the runbook):
   * each one in its own transaction with its inbox row, deleting the dead letter. One that fails again
   * stays, with the new error, unmarked. Returns how many were applied.
   */
  replayDeadLetters(): Promise<number> {
    this.replaying ??= this.replayOnce().finally(() => {
      this.replaying = undefined;
    });
    return this.replaying;
  }

  private async replayOnce(): Promise<number> {
    const { db, logger } = this.opts;
    const results = await replayDeadLetters(db, this.opts.durableName, (envelope, tx) => {
      const decoded = this.decode(envelope);
      if (isUnknownEvent(decoded)) throw new Error(decoded.unknownEvent);
      return runWithContext({ correlationId: String(envelope.metadata.correlationId ?? envelope.id) }, () => this.applyOnce(decoded, tx));
    });
    let replayed = 0;
    for (const r of results) {
      if (r.error !== undefined) {
        logger.error({ err: r.error, consumer: this.name, deadLetter: r.id }, 'consumer: dead letter replay failed; kept');
        continue;
      }
      replayed++;
      this.counts.replayed++;
      logger.info({ consumer: this.name, deadLetter: r.id, applied: r.applied }, 'consumer: dead letter replayed');
    }
    return replayed;
  }

  /** Stops pulling, lets the messages already held finish, and waits for the loop to end. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.replayTimer);
    clearTimeout(this.lagTimer);
    this.wakeSleep?.();
    await this.batch?.close();
    await this.loop;
    await this.replaying;
    await this.polling;
    clearInterval(this.workingTimer);
    // A stopped consumer reports no lag of its own (another instance, or the next start, will).
    this.metrics.lagMessages.remove(this.labels);
    this.metrics.lagSeconds.remove(this.labels);
  }
}

/** The trace an event was published in: its message's header, else the span that recorded it (its metadata). */
function traceOf(msg: JsMsg, event: BusEvent): unknown {
  return msg.headers?.get(TRACEPARENT) || event.metadata[TRACEPARENT];
}
