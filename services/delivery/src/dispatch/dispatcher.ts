import type { DeliveryChannel, NotificationFiredV1 } from '@invest/contracts';
import type { Db, Logger, Tx } from '@invest/platform';
import { endSpan, linksTo, SpanKind, startSpan } from '@invest/platform/tracing/tracing';
import type { ChannelSender, SendResult } from '../channels/channel.js';
import { inQuietHours, quietHoursEnd } from '../settings/quiet-hours.js';
import { readSettingsOf, type UserSettings } from '../settings/settings.repository.js';
import type { DeliverableFiringsClient } from './deliverable-firings.client.js';
import { countDeliveryOutcomes, type DeliveryOutcome } from './delivery.metrics.js';
import { renderMessage } from './render-message.js';

export interface DispatcherOptions {
  db: Db;
  logger: Logger;
  clock: () => Date;
  /** The registered channels, read at each use (channels register theirs while the app starts). */
  senders: readonly ChannelSender[];
  firings: Pick<DeliverableFiringsClient, 'deliverable'>;
  /** The web client's origin, for links. */
  publicBaseUrl: string;
  /** How often due groups and deliveries are looked for. */
  pollMs: number;
  /** Transactions sending at once, each holding up to `sendBatch` messages while they are sent (default 4). */
  concurrency?: number;
  /** Due deliveries one sending transaction claims (default 25): their messages are sent at once and recorded together. */
  sendBatch?: number;
  /** First retry after this long, doubling per attempt up to `retryMaxMs` (defaults 5 s, 1 h). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /**
   * A send that has not answered after this long counts as a retryable failure (default 60 s; channels time out
   * their own calls sooner). The provider may still deliver it: then it is one of the documented duplicates.
   */
  sendTimeoutMs?: number;
  /** Attempts before a message that keeps failing is given up as a permanent failure (default 12: about 2.5 h). */
  maxAttempts?: number;
}

/** What came of one batch: recorded together once every batch of the transaction has its outcome. */
type Outcome =
  | { kind: 'sent'; batch: Batch; providerId: string | undefined; firings: number }
  | { kind: 'failed'; batch: Batch; sender: ChannelSender; result: Exclude<SendResult, { outcome: 'sent' }> }
  | { kind: 'skipped'; batch: Batch; reason: string }
  | { kind: 'postponed'; batch: Batch; until: Date };

/** What came of one message, counted once its transaction committed. */
interface Handled {
  channel: Batch['channel'];
  outcome: DeliveryOutcome;
}

/** A batch the settings, channel and address allow: sent once alerts says which of its firings may go out. */
interface Ready {
  kind: 'ready';
  batch: Batch;
  sender: ChannelSender;
  settings: UserSettings;
  /** Its firings in the order they fired. */
  received: { event: NotificationFiredV1; received_at: Date; traceparent: string | null }[];
}

/** Message groups one sealing transaction takes (a rate batch makes one per user). */
const SEAL_BATCH = 200;

/** The pending deliveries of one user, channel and address that are due now: sent as one message. */
interface Batch {
  userId: string;
  channel: Exclude<DeliveryChannel, 'in_app'>;
  address: string;
  ids: string[];
  groupIds: string[];
  /** Attempts made so far (the most of any of them). */
  attempts: number;
}

/**
 * The outbox's two loops, in every instance (rows are claimed with `for update skip locked`), each taking many
 * rows per transaction: a rate batch makes hundreds of messages at once, and a statement per message cost more
 * than the messages (bench delivery).
 *
 * - **seal**: a message group whose window has passed becomes one `deliveries` row per enabled channel and
 *   address, due now, or at the end of the user's quiet hours when they are in them.
 * - **send**: the due pending deliveries of one user, channel and address (one or several groups: a digest) are
 *   locked, merged into one message, sent, and recorded in the same transaction, with the other messages the
 *   transaction claimed. Telegram and SMTP take no idempotency key: a crash after the provider accepted and
 *   before the commit leaves the rows pending and they are sent once more after a restart (README, "Duplicates").
 */
export class Dispatcher {
  private stopping = false;
  // Sealing and sending run side by side: the first groups of a rate batch go out while later ones are sealed.
  private readonly sealing: Poller;
  private readonly sending: Poller;

  constructor(private readonly o: DispatcherOptions) {
    const loop = { pollMs: o.pollMs, logger: o.logger, stopped: () => this.stopping };
    this.sealing = new Poller(() => this.sealDue(), loop);
    this.sending = new Poller(() => this.sendDue(), loop);
  }

  start(): Promise<void> {
    this.sealing.start();
    this.sending.start();
    return Promise.resolve();
  }

  /** Stops looking for work; a message being sent is finished and recorded first. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await Promise.all([this.sealing.stopped(), this.sending.stopped()]);
  }

  /** Looks for work now rather than at the next poll. */
  wake(): void {
    this.sealing.wake();
    this.sending.wake();
  }

  /** Seals every group due now, a batch per transaction; how many. */
  async sealDue(): Promise<number> {
    let sealed = 0;
    for (;;) {
      const n = this.stopping ? 0 : await this.sealSome();
      if (n > 0) this.sending.wake();
      sealed += n;
      if (n < SEAL_BATCH) return sealed;
    }
  }

  private sealSome(): Promise<number> {
    return this.o.db.transaction(async (tx) => {
      const now = this.o.clock();
      const groups = await tx.query<{ id: string; user_id: string }>(
        'select id::text, user_id from message_groups where sealed_at is null and due_at <= $1 order by due_at, id limit $2 for update skip locked',
        [now, SEAL_BATCH],
      );
      if (groups.length === 0) return 0;
      const users = [...new Set(groups.map((g) => g.user_id))];
      const settings = await readSettingsOf(tx, users);
      const rows: { group: string; user: string; channel: string; address: string; at: Date }[] = [];
      for (const sender of this.o.senders) {
        const addresses = await sender.addresses(tx, users);
        for (const g of groups) {
          const s = settings.get(g.user_id)!;
          if (!s.channels[sender.channel]) continue;
          const at = quietHoursEnd(now, s.quietHours, s.timeZone) ?? now;
          for (const address of new Set(addresses.get(g.user_id))) rows.push({ group: g.id, user: g.user_id, channel: sender.channel, address, at });
        }
      }
      await tx.query(
        `insert into deliveries (group_id, user_id, channel, address, next_attempt_at)
         select * from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
         on conflict (group_id, channel, address) do nothing`,
        [rows.map((r) => r.group), rows.map((r) => r.user), rows.map((r) => r.channel), rows.map((r) => r.address), rows.map((r) => r.at)],
      );
      await tx.query('update message_groups set sealed_at = $2 where id = any($1::bigint[])', [groups.map((g) => g.id), now]);
      return groups.length;
    });
  }

  /** Sends what is due now, `concurrency` transactions at once; how many messages were handled. */
  async sendDue(): Promise<number> {
    let handled = 0;
    const drain = async () => {
      while (!this.stopping) {
        const n = await this.sendSome();
        if (n === 0) return;
        handled += n;
      }
    };
    // Every worker finishes (and records what it sent) before a failure is reported.
    const failed = (await Promise.allSettled(Array.from({ length: this.o.concurrency ?? 4 }, drain))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return handled;
  }

  /**
   * Claims due deliveries, takes the send lock of each of their addresses (one message at a time per address,
   * across workers and instances; an address another worker holds is left to it), merges each address's due
   * rows into one message, sends them all at once and records them together. How many messages it handled (0:
   * nothing is due for this worker).
   */
  private async sendSome(): Promise<number> {
    const handled = await this.o.db.transaction(async (tx): Promise<Handled[]> => {
      const now = this.o.clock();
      const claimed = await tx.query<{ user_id: string; channel: Batch['channel']; address: string }>(
        `select distinct user_id, channel, address from (
           select user_id, channel, address from deliveries where status = 'pending' and next_attempt_at <= $1
            order by next_attempt_at, id limit $2 for update skip locked) c`,
        [now, this.o.sendBatch ?? 25],
      );
      if (claimed.length === 0) return [];
      const keyOf = (c: { user_id: string; channel: string; address: string }) => `delivery-send:${c.user_id}:${c.channel}:${c.address}`;
      const locked = new Set(
        (await tx.query<{ k: string }>('select k from unnest($1::text[]) as k where pg_try_advisory_xact_lock(hashtextextended(k, 0))', [claimed.map(keyOf)])).map((r) => r.k),
      );
      const mine = claimed.filter((c) => locked.has(keyOf(c)));
      if (mine.length === 0) return [];
      // Each address's other due rows too (a digest of several groups), unless another worker holds them as its
      // claim: that one fails to take the address's lock and lets them go, and they follow in the next message.
      // Never waiting keeps two workers from waiting on each other.
      const rows = await tx.query<{ id: string; group_id: string; attempts: number; user_id: string; channel: Batch['channel']; address: string }>(
        `select id::text, group_id::text, attempts, user_id, channel, address from deliveries
          where status = 'pending' and next_attempt_at <= $1
            and (user_id, channel, address) in (select * from unnest($2::text[], $3::text[], $4::text[]))
          order by id for update skip locked`,
        [now, mine.map((c) => c.user_id), mine.map((c) => c.channel), mine.map((c) => c.address)],
      );
      const batches = new Map<string, Batch>();
      for (const r of rows) {
        const key = keyOf(r);
        const b = batches.get(key) ?? { userId: r.user_id, channel: r.channel, address: r.address, ids: [], groupIds: [], attempts: 0 };
        b.ids.push(r.id);
        if (!b.groupIds.includes(r.group_id)) b.groupIds.push(r.group_id);
        b.attempts = Math.max(b.attempts, r.attempts);
        batches.set(key, b);
      }
      return this.deliver(tx, [...batches.values()], now);
    });
    // Counted once committed: a transaction that failed records nothing, and its messages are handled again.
    countDeliveryOutcomes(handled);
    return handled.length;
  }

  /** Sends the batches at once and records what came of each; what that was, per message. */
  private async deliver(tx: Tx, batches: Batch[], now: Date): Promise<Handled[]> {
    const users = [...new Set(batches.map((b) => b.userId))];
    const settings = await readSettingsOf(tx, users);
    const inUse = new Map<string, Map<string, string[]>>();
    for (const sender of this.o.senders) {
      const of = batches.filter((b) => b.channel === sender.channel).map((b) => b.userId);
      if (of.length > 0) inUse.set(sender.channel, await sender.addresses(tx, [...new Set(of)]));
    }
    const received = await tx.query<{ group_id: string; event: NotificationFiredV1; received_at: Date; traceparent: string | null }>(
      'select group_id::text, event, received_at, traceparent from received_firings where group_id = any($1::bigint[])',
      [batches.flatMap((b) => b.groupIds)],
    );
    const checked = batches.map((batch) =>
      this.check(batch, now, settings.get(batch.userId)!, inUse.get(batch.channel)?.get(batch.userId) ?? [], received.filter((r) => batch.groupIds.includes(r.group_id))),
    );
    const ready = checked.filter((c): c is Ready => c.kind === 'ready');
    let deliverable: Set<number> | undefined;
    try {
      deliverable = await this.o.firings.deliverable(ready.flatMap((r) => r.received.map((x) => ({ userId: r.batch.userId, firingId: x.event.firingId }))));
    } catch (err) {
      // Alerts away: nothing is known about what was switched off; ask again soon, without counting an attempt.
      this.o.logger.warn({ err, deliveries: ready.flatMap((r) => r.batch.ids) }, 'alerts did not say which firings may go out; the messages wait');
    }
    const outcomes = await Promise.all(
      checked.map((c): Outcome | Promise<Outcome> => {
        if (c.kind !== 'ready') return c;
        if (!deliverable) return { kind: 'postponed', batch: c.batch, until: new Date(now.getTime() + this.retryBaseMs) };
        return this.send(c, deliverable);
      }),
    );
    const sent = outcomes.filter((o): o is Extract<Outcome, { kind: 'sent' }> => o.kind === 'sent');
    if (sent.length > 0) {
      const rows = sent.flatMap((o) => o.batch.ids.map((id) => ({ id, attempts: o.batch.attempts + 1, providerId: o.providerId ?? null })));
      await tx.query(
        `update deliveries d set status = 'sent', attempts = v.attempts, sent_at = $1, provider_id = v.provider_id, last_error = null
           from unnest($2::bigint[], $3::int[], $4::text[]) as v(id, attempts, provider_id) where d.id = v.id`,
        [now, rows.map((r) => r.id), rows.map((r) => r.attempts), rows.map((r) => r.providerId)],
      );
      // The channel works again: the settings screen no longer shows its last failure.
      await tx.query('delete from delivery_failures f using unnest($1::text[], $2::text[]) as v(user_id, channel) where f.user_id = v.user_id and f.channel = v.channel', [
        sent.map((o) => o.batch.userId),
        sent.map((o) => o.batch.channel),
      ]);
      for (const o of sent) this.o.logger.debug({ deliveries: o.batch.ids, channel: o.batch.channel, userId: o.batch.userId, firings: o.firings }, 'message sent');
    }
    // A provider's wait (Telegram's retry_after) counts from its answer, not from the claim: on a busy machine
    // the claim can be long before the send, and a retry timed from it comes too soon and is refused again.
    const answeredAt = this.o.clock();
    const handled: Handled[] = [];
    for (const o of outcomes) {
      let outcome: DeliveryOutcome = o.kind;
      if (o.kind === 'skipped') await this.close(tx, o.batch, 'skipped', o.reason);
      else if (o.kind === 'postponed') await this.postpone(tx, o.batch, o.until);
      else if (o.kind === 'failed') outcome = await this.record(tx, o.batch, o.sender, o.result, answeredAt);
      handled.push({ channel: o.batch.channel, outcome });
    }
    return handled;
  }

  /** What the settings, the channel and the address say of one batch before anything is sent. */
  private check(batch: Batch, now: Date, settings: UserSettings, inUse: string[], received: Ready['received']): Ready | Outcome {
    if (!settings.channels[batch.channel]) return { kind: 'skipped', batch, reason: 'The channel was switched off.' };
    // Quiet hours set after the message was sealed: it waits for their end too.
    const quietEnd = quietHoursEnd(now, settings.quietHours, settings.timeZone);
    if (quietEnd) return { kind: 'postponed', batch, until: quietEnd };
    const sender = this.o.senders.find((s) => s.channel === batch.channel);
    if (!sender) return { kind: 'skipped', batch, reason: 'The channel is not configured in this deployment.' };
    // Unlinked, unsubscribed or replaced since it was sealed: nothing goes to the old address.
    if (!inUse.includes(batch.address)) return { kind: 'skipped', batch, reason: 'The address is no longer in use.' };
    const sorted = [...received].sort((a, b) => Date.parse(a.event.firedAt) - Date.parse(b.event.firedAt) || a.event.firingId - b.event.firingId);
    return { kind: 'ready', batch, sender, settings, received: sorted };
  }

  /** Renders the batch's firings that may still go out into one message and sends it. */
  private async send(ready: Ready, deliverable: Set<number>): Promise<Outcome> {
    const { batch, sender, settings } = ready;
    const firings = ready.received.filter((r) => deliverable.has(r.event.firingId));
    if (firings.length === 0) return { kind: 'skipped', batch, reason: 'Every notification of the message was deleted or switched off.' };
    const digest = batch.groupIds.length > 1 || firings.some((r) => inQuietHours(new Date(r.received_at), settings.quietHours, settings.timeZone));
    const message = renderMessage({ userId: batch.userId, language: settings.language, firings: firings.map((r) => r.event), digest, publicBaseUrl: this.o.publicBaseUrl });
    // Tracing: the send continues the trace its first firing was received in, and links the others'.
    const traces = firings.map((r) => r.traceparent);
    const span = startSpan(`send ${batch.channel}`, SpanKind.CLIENT, traces[0] ?? undefined, { 'delivery.firings': firings.length }, linksTo(traces.slice(1)));
    let result: SendResult;
    try {
      result = await withTimeout(sender.send(batch.address, message), this.o.sendTimeoutMs ?? 60_000);
    } catch (err) {
      result = { outcome: 'retry', reason: err instanceof Error ? err.message : String(err) };
    }
    span.setAttribute('delivery.outcome', result.outcome);
    endSpan(span, result.outcome === 'sent' ? undefined : result.reason);
    if (result.outcome === 'sent') return { kind: 'sent', batch, providerId: result.providerId, firings: firings.length };
    return { kind: 'failed', batch, sender, result };
  }

  /** Records a failed send: failed for good, or tried again later (`retried`). */
  private async record(tx: Tx, batch: Batch, sender: ChannelSender, result: Exclude<SendResult, { outcome: 'sent' }>, now: Date): Promise<'failed' | 'retried'> {
    const attempts = batch.attempts + 1;
    const log = { deliveries: batch.ids, channel: batch.channel, userId: batch.userId, attempts };
    if (result.outcome === 'permanent') {
      this.o.logger.warn({ ...log, reason: result.reason }, 'message refused for good');
      await this.fail(tx, batch, attempts, result.reason, now);
      await sender.onPermanentFailure?.(tx, batch.userId, batch.address, result.reason);
      return 'failed';
    }
    if (attempts >= this.maxAttempts) {
      this.o.logger.warn({ ...log, reason: result.reason }, 'message given up after its last attempt');
      await this.fail(tx, batch, attempts, `Gave up after ${attempts} attempts: ${result.reason}`, now);
      return 'failed';
    }
    const delay = result.afterMs ?? Math.min(this.retryBaseMs * 2 ** (attempts - 1), this.o.retryMaxMs ?? 3_600_000);
    await tx.query('update deliveries set attempts = $2, next_attempt_at = $3, last_error = $4 where id = any($1::bigint[])', [batch.ids, attempts, new Date(now.getTime() + delay), result.reason]);
    this.o.logger.warn({ ...log, reason: result.reason, retryInMs: delay }, 'message not sent; it is tried again');
    return 'retried';
  }

  /** Failed for good: recorded on the rows and as the channel's last failure, which the settings screen shows. */
  private async fail(tx: Tx, batch: Batch, attempts: number, reason: string, now: Date): Promise<void> {
    await tx.query("update deliveries set status = 'failed', attempts = $2, last_error = $3 where id = any($1::bigint[])", [batch.ids, attempts, reason]);
    await tx.query(
      `insert into delivery_failures (user_id, channel, at, reason) values ($1, $2, $3, $4)
       on conflict (user_id, channel) do update set at = excluded.at, reason = excluded.reason`,
      [batch.userId, batch.channel, now, reason],
    );
  }

  private async close(tx: Tx, batch: Batch, status: 'skipped', reason: string): Promise<void> {
    await tx.query('update deliveries set status = $2, last_error = $3 where id = any($1::bigint[])', [batch.ids, status, reason]);
    this.o.logger.debug({ deliveries: batch.ids, channel: batch.channel, reason }, 'message not sent');
  }

  private async postpone(tx: Tx, batch: Batch, until: Date): Promise<void> {
    await tx.query('update deliveries set next_attempt_at = $2 where id = any($1::bigint[])', [batch.ids, until]);
  }

  private get retryBaseMs(): number {
    return this.o.retryBaseMs ?? 5_000;
  }

  private get maxAttempts(): number {
    return this.o.maxAttempts ?? 12;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`The channel did not answer within ${ms} ms.`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** One of the dispatcher's loops: `work` every poll, or at once when woken; backs off while it fails. */
class Poller {
  private done: Promise<void> | undefined;
  private woken = false;
  private wakeSleep: (() => void) | undefined;

  constructor(
    private readonly work: () => Promise<unknown>,
    private readonly loop: { pollMs: number; logger: Logger; stopped: () => boolean },
  ) {}

  start(): void {
    this.done ??= this.run();
  }

  stopped(): Promise<void> {
    return this.done ?? Promise.resolve();
  }

  wake(): void {
    this.woken = true;
    this.wakeSleep?.();
  }

  private async run(): Promise<void> {
    const { loop } = this;
    let failures = 0;
    while (!loop.stopped()) {
      this.woken = false;
      try {
        await this.work();
        failures = 0;
      } catch (err) {
        failures++;
        loop.logger.error({ err, failures }, 'delivery dispatch failed; trying again');
      }
      await this.sleep(failures ? Math.min(loop.pollMs * 2 ** failures, 30_000) : loop.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.loop.stopped() || this.woken) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.wakeSleep?.(), ms);
      this.wakeSleep = () => {
        clearTimeout(timer);
        this.wakeSleep = undefined;
        resolve();
      };
    });
  }
}
