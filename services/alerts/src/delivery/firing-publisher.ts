import { AlertsEventTypes, type BusEvent, type CrossedAsset, eventSubject, type FiringExplanation, type FiringType, type Locale, type NotificationFiredV1 } from '@invest/contracts';
import { currentContext } from '@invest/platform/context/request-context';
import type { Db, SqlClient } from '@invest/platform/db/database';
import type { Logger } from '@invest/platform/logging/logger';
import type { Bus } from '@invest/platform/messaging/bus';
import { busSubject } from '@invest/platform/messaging/bus-prefix';
import { publishBatch } from '@invest/platform/messaging/publish-batch';
import { endSpan, SpanKind, startSpan, TRACEPARENT, traceparentOf } from '@invest/platform/tracing/tracing';

/** A committed firing as stored: a price notification's, or an account notice (of no notification, no explanation). */
export interface FiringRecord {
  id: number;
  eventId: string;
  /** Null for an account notice (docs/decisions/0036-billing-notices.md). */
  notificationId: number | null;
  userId: string;
  type: FiringType;
  texts: Record<string, { title: string; body: string }>;
  path: string;
  assets: CrossedAsset[];
  explanation: FiringExplanation | null;
  firedAt: Date;
}

/** A firing's three documents as JSON text, written once for its row (and shared by firings alike). */
export interface FiringJson {
  texts: string;
  assets: string;
  explanation: string;
}

export function firingJson(texts: FiringRecord['texts'], assets: readonly CrossedAsset[], explanation: FiringExplanation): FiringJson {
  return { texts: JSON.stringify(texts), assets: JSON.stringify(assets), explanation: JSON.stringify(explanation) };
}

/** A price notification's firing, as evaluation records it: of a notification, with why it fired. */
export type PriceFiringRecord = FiringRecord & { notificationId: number; explanation: FiringExplanation };

/** Firings committed together, with the `firing_publications` row that stays until JetStream has them all. */
export interface CommittedFirings<F extends FiringRecord = FiringRecord> {
  publicationId: number;
  firings: F[];
}

/** The NotificationFired of a firing: the same envelope (event id = the firing's) whichever path publishes it. */
export function notificationFiredEvent(f: FiringRecord): BusEvent<NotificationFiredV1> {
  const ru = f.texts.ru ?? { title: '', body: '' };
  return {
    id: f.eventId,
    type: AlertsEventTypes.NotificationFired,
    streamName: `notification-firing-${f.id}`,
    streamPosition: 1,
    recordedAt: f.firedAt.toISOString(),
    data: {
      version: 1,
      firingId: f.id,
      userId: f.userId,
      notificationId: f.notificationId,
      type: f.type,
      title: ru.title,
      body: ru.body,
      texts: f.texts as Record<Locale, { title: string; body: string }>,
      path: f.path,
      assets: f.assets,
      explanation: f.explanation,
      firedAt: f.firedAt.toISOString(),
    },
    metadata: {},
  };
}

export interface FiringPublisherOptions {
  db: Db;
  bus: Bus;
  logger: Logger;
  /** A publication still there after this long is taken over by the backstop (default 10 s; below JetStream's 2-minute duplicate window). */
  graceMs?: number;
  /** How often the backstop looks for publications left behind (default 5 s). */
  backstopPollMs?: number;
}

/**
 * Publishes NotificationFired to ALERTS_EVENTS straight after its firings committed (msgID = the firing's
 * event id), then deletes their `firing_publications` row. The backstop publishes, from the database, the
 * rows a crash or a NATS outage left behind; a firing published twice is dropped by JetStream's duplicate
 * window (and a consumer's inbox beyond it), so the database stays the source of truth.
 */
export class FiringPublisher {
  private timer: NodeJS.Timeout | undefined;
  private backstop: Promise<number> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly opts: FiringPublisherOptions) {}

  /** Publishes committed firings now; never throws (what fails stays for the backstop). */
  publish(committed: CommittedFirings): Promise<void> {
    const p = this.publishNow(committed).catch((err) => {
      this.opts.logger.warn({ err, publication: committed.publicationId, firings: committed.firings.length }, 'alerts: NotificationFired not published; the backstop will');
    });
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  private async publishNow({ publicationId, firings }: CommittedFirings): Promise<void> {
    await this.send(firings);
    // A transaction of its own: called inside the consumer's inbox transaction, `db.query` would join it
    // (and a rollback there would leave the row to be published again).
    await this.opts.db.transaction((tx) => tx.query('delete from firing_publications where id = $1', [publicationId]));
  }

  private async send(firings: readonly FiringRecord[]): Promise<void> {
    const { bus } = this.opts;
    // One subject for every firing, with no id in it: JetStream's file store keeps state per subject, and a
    // subject per notification made each publish a new one (~4 µs more of nats-server a message, a quarter
    // of its cost; `docs/decisions/0024-alerts-direct-publication.md`). Nothing filters by notification; the gateway fans out by user.
    const subject = busSubject(bus.prefix, eventSubject('alerts', AlertsEventTypes.NotificationFired));
    // Tracing: published in a span of the work that fired them (a consumer's), which delivery continues. The
    // backstop's publishes start traces of their own.
    const span = startSpan(`publish ${AlertsEventTypes.NotificationFired}`, SpanKind.PRODUCER, currentContext()?.trace, { 'messaging.batch.message_count': firings.length });
    const traceparent = traceparentOf(span.spanContext());
    try {
      await publishBatch(
        bus,
        firings.map((f) => ({
          subject,
          data: JSON.stringify(traceparent ? { ...notificationFiredEvent(f), metadata: { [TRACEPARENT]: traceparent } } : notificationFiredEvent(f)),
          msgId: f.eventId,
          ...(traceparent ? { headers: { [TRACEPARENT]: traceparent } } : {}),
        })),
      );
    } catch (err) {
      endSpan(span, err);
      throw err;
    }
    endSpan(span);
  }

  /**
   * Publishes the publications older than the grace period, from the database (locked while publishing, so
   * two instances do not both take one). Returns how many firings it published.
   */
  runBackstop(): Promise<number> {
    this.backstop ??= this.backstopOnce().finally(() => {
      this.backstop = undefined;
    });
    return this.backstop;
  }

  private async backstopOnce(): Promise<number> {
    const { db, logger } = this.opts;
    let published = 0;
    for (;;) {
      const n = await db.transaction(async (tx) => {
        const [pub] = await tx.query<{ id: string; firing_ids: string[] }>(
          `select id::text, firing_ids::text[] from firing_publications where created_at < now() - make_interval(secs => $1::float8 / 1000)
           order by firing_publications.id limit 1 for update skip locked`,
          [this.opts.graceMs ?? 10_000],
        );
        if (!pub) return -1;
        const firings = await loadFirings(tx, pub.firing_ids.map(Number));
        await this.send(firings);
        await tx.query('delete from firing_publications where id = $1', [pub.id]);
        return firings.length;
      });
      if (n < 0) break;
      published += n;
    }
    if (published > 0) logger.warn({ published }, 'alerts: backstop published NotificationFired left behind');
    return published;
  }

  async start(): Promise<void> {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        void this.runBackstop()
          .catch((err) => this.opts.logger.warn({ err }, 'alerts: publication backstop failed; will retry'))
          .finally(tick);
      }, this.opts.backstopPollMs ?? 5_000);
      this.timer.unref();
    };
    tick();
  }

  /** Waits for the publishes under way (their rows are deleted, or left for the next start's backstop). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all([...this.inFlight]);
    await this.backstop?.catch(() => undefined);
  }
}

interface FiringRow {
  id: string;
  event_id: string;
  notification_id: string | null;
  user_id: string;
  type: FiringType;
  texts: Record<string, { title: string; body: string }>;
  path: string;
  assets: CrossedAsset[];
  explanation: FiringExplanation | null;
  fired_at: Date;
}

export const FIRING_RECORD_COLUMNS = 'id::text, event_id::text, notification_id::text, user_id, type, texts, path, assets, explanation, fired_at';

export function toFiringRecord(r: FiringRow): FiringRecord {
  return {
    id: Number(r.id),
    eventId: r.event_id,
    notificationId: r.notification_id === null ? null : Number(r.notification_id),
    userId: r.user_id,
    type: r.type,
    texts: r.texts,
    path: r.path,
    assets: r.assets,
    explanation: r.explanation,
    firedAt: new Date(r.fired_at),
  };
}

async function loadFirings(tx: SqlClient, ids: readonly number[]): Promise<FiringRecord[]> {
  const rows = await tx.query<FiringRow>(`select ${FIRING_RECORD_COLUMNS} from notification_firings where id = any($1::bigint[]) order by notification_firings.id`, [ids]);
  return rows.map(toFiringRecord);
}
