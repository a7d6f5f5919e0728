import { CORRELATION_HEADER, type BusEvent, STREAM_HEADER } from '@invest/contracts';
import pg from 'pg';
import type { Db } from '../db/database.js';
import { hasEventsAfter, loadCheckpoint, readAll, type ReadHorizon, type RecordedEvent, storeCheckpoint } from '../event-store/event-store.js';
import type { Logger } from '../logging/logger.js';
import { outboxMetrics } from '../metrics/platform-metrics.js';
import type { Bus } from './bus.js';
import { busSubject } from './bus-prefix.js';
import { endSpan, type Span, SpanKind, startSpan, TRACEPARENT, traceparentOf } from '../tracing/tracing.js';
import { type BatchMessage, publishBatch } from './publish-batch.js';

export interface EventRelayOptions {
  db: Db;
  bus: Bus;
  /** Checkpoint name; one relay per service database. */
  name: string;
  /** Subject (without the bus prefix) an event goes to, or null to keep it private to the service. */
  subjectFor(event: RecordedEvent): string | null;
  logger: Logger;
  batchSize?: number;
  /** Fallback poll interval; commits also wake the relay through LISTEN/NOTIFY. */
  pollMs?: number;
  /** Which running transactions hold the relay back (see `readAll`); `'database'` unless a bench compares. */
  horizon?: ReadHorizon;
  /**
   * Re-creates those of the streams the relay publishes to that are missing on the server, returning their
   * names; called after a failed publish, before the batch is tried again. A publish to a deleted stream does
   * not always say so: where a plain subscriber listens on the subject (a service following its own events),
   * it times out like any unanswered request. Services get it from `startRelay`.
   */
  ensureStreams?(): Promise<string[]>;
  /** How often the outbox depth and oldest age are measured for the metrics (default 10 s). */
  sampleMs?: number;
  /** Test hook: runs each time the relay has published what it could read and starts waiting. */
  onIdle?(): void;
}

/** The bus form of a recorded event. */
export function toBusEvent(e: RecordedEvent): BusEvent {
  return {
    id: e.id,
    type: e.type,
    streamName: e.streamName,
    streamPosition: e.streamPosition,
    recordedAt: e.recordedAt.toISOString(),
    data: e.data,
    metadata: e.metadata,
  };
}

/**
 * Publishes stored events to JetStream in order, with msgID = event id, and advances its checkpoint
 * only after JetStream acknowledged every event up to it. A crash between publish and checkpoint
 * re-publishes; the stream's duplicate window and consumers' inboxes absorb the repeat.
 */
export class EventRelay {
  private running = false;
  private wake: (() => void) | undefined;
  /** Set by a notification that arrives while a batch is being published. */
  private dirty = false;
  /** Passes in a row that ended with events waiting behind the horizon. */
  private blocked = 0;
  private listener: pg.Client | undefined;
  private loop: Promise<void> | undefined;
  private sampleTimer: NodeJS.Timeout | undefined;
  private readonly metrics = outboxMetrics();

  constructor(private readonly opts: EventRelayOptions) {}

  /** Measures what waits to be published (events after the checkpoint) into the outbox metrics; exposed for tests. */
  async sampleOutbox(): Promise<{ depth: number; oldestAgeSeconds: number }> {
    const checkpoint = await loadCheckpoint(this.opts.db, this.opts.name);
    const [row] = await this.opts.db.query<{ depth: number; age: number }>(
      `select count(*)::int as depth, coalesce(extract(epoch from now() - min(recorded_at)), 0)::float8 as age
       from es_events where (transaction_id, global_position) > ($1::xid8, $2::bigint)`,
      [checkpoint.transactionId, checkpoint.globalPosition],
    );
    const sample = { depth: row?.depth ?? 0, oldestAgeSeconds: Math.max(0, row?.age ?? 0) };
    this.metrics.depth.set(sample.depth);
    this.metrics.oldestAge.set(sample.oldestAgeSeconds);
    return sample;
  }

  /** The first at once, so the series exist from the start. */
  private scheduleSamples(delayMs = 0): void {
    this.sampleTimer = setTimeout(() => {
      this.sampleOutbox()
        .catch((err: unknown) => this.opts.logger.debug({ err }, 'relay: outbox sample failed'))
        .finally(() => {
          if (this.running) this.scheduleSamples(this.opts.sampleMs ?? 10_000);
        });
    }, delayMs);
    this.sampleTimer.unref();
  }

  /** Publishes everything available now; returns how many events were published. */
  async runOnce(): Promise<number> {
    const { db, bus, name, subjectFor, logger } = this.opts;
    let published = 0;
    // Read once a pass: after storing it, the relay knows where it stands (another instance that moved it further
    // only makes this one publish again what JetStream drops as duplicates).
    let checkpoint = await loadCheckpoint(db, name);
    for (;;) {
      const batch = await readAll(db, checkpoint, this.opts.batchSize ?? 200, this.opts.horizon);
      if (batch.length === 0) {
        // Committed events held back by a running transaction: that transaction's end sends no notification
        // unless it wrote events itself, so look again soon rather than at the next poll.
        this.blocked = (await hasEventsAfter(db, checkpoint)) ? this.blocked + 1 : 0;
        return published;
      }
      // Publish the batch at once (JetStream keeps per-publisher order), then await every ack.
      const messages: (BatchMessage & { eventId: string })[] = [];
      // Tracing: an event recorded within a trace is published in a span of its own, the consumers' parent.
      const spans: Span[] = [];
      for (const event of batch) {
        const subject = subjectFor(event);
        if (subject === null) continue;
        const cid = event.metadata.correlationId;
        const recordedIn = event.metadata[TRACEPARENT];
        const span = typeof recordedIn === 'string' ? startSpan(`publish ${event.type}`, SpanKind.PRODUCER, recordedIn, { 'messaging.destination.name': subject }) : undefined;
        const traceparent = span && traceparentOf(span.spanContext());
        if (span) spans.push(span);
        messages.push({
          subject: busSubject(bus.prefix, subject),
          data: JSON.stringify(toBusEvent(event)),
          msgId: event.id,
          eventId: event.id,
          headers: {
            [STREAM_HEADER]: event.streamName,
            ...(typeof cid === 'string' ? { [CORRELATION_HEADER]: cid } : {}),
            ...(traceparent ? { [TRACEPARENT]: traceparent } : {}),
          },
        });
      }
      const { duplicates } = await publishBatch(bus, messages).catch((err: unknown) => {
        for (const span of spans) endSpan(span, err);
        throw err;
      });
      for (const span of spans) endSpan(span);
      for (const i of duplicates) logger.debug({ eventId: messages[i]!.eventId }, 'relay: duplicate publish ignored by JetStream');
      const last = batch[batch.length - 1]!;
      checkpoint = { transactionId: last.transactionId, globalPosition: last.globalPosition };
      await storeCheckpoint(db, name, checkpoint);
      published += batch.length;
    }
  }

  /** Runs until stop(): on every commit notification and every poll interval. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.listener = new pg.Client({ connectionString: this.opts.db.url });
    this.listener.on('error', (err) => this.opts.logger.warn({ err }, 'relay: listen connection failed; polling only'));
    try {
      await this.listener.connect();
      await this.listener.query('listen es_events');
      this.listener.on('notification', () => {
        this.dirty = true;
        this.wake?.();
      });
    } catch (err) {
      this.opts.logger.warn({ err }, 'relay: LISTEN unavailable; polling only');
    }
    this.loop = this.run();
    this.scheduleSamples();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        this.dirty = false;
        await this.runOnce();
        failures = 0;
      } catch (err) {
        failures++;
        this.opts.logger.error({ err, failures }, 'relay: publish failed; will retry');
        // Nothing was lost: the checkpoint did not move, so the batch goes again, to a re-created stream if its
        // stream was deleted.
        const recreated = await this.opts.ensureStreams?.().catch((e: unknown) => {
          this.opts.logger.warn({ err: e }, 'relay: could not check the streams; will retry');
          return [];
        });
        if (recreated?.length) this.opts.logger.warn({ streams: recreated }, 'relay: streams missing on the server re-created');
      }
      const pollMs = this.opts.pollMs ?? 1000;
      const delay = failures
        ? Math.min(30_000, 250 * 2 ** failures)
        : this.blocked
          ? // At most ~1.3 s behind a held-back transaction's end (one cheap indexed look a pass); a cap of ~10 s
            // let events wait that long after a long transaction, and timed a test out under load.
            Math.min(pollMs, 10 * 2 ** Math.min(this.blocked, 7))
          : pollMs;
      // stop() during a pass found no wake to call: without this check the loop would sleep a whole poll first.
      if (!this.running) break;
      if (this.dirty && !failures) continue;
      this.opts.onIdle?.();
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.sampleTimer);
    this.wake?.();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
  }
}
