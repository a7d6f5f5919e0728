import type { DeliveryChannel, NotificationFiredV1 } from '@invest/contracts';
import type { Db, Logger, Tx } from '@invest/platform';
import type { ChannelSender, SendResult } from '../channels/channel.js';
import { inQuietHours, quietHoursEnd } from '../settings/quiet-hours.js';
import { readSettings } from '../settings/settings.repository.js';
import type { DeliverableFiringsClient } from './deliverable-firings.client.js';
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
  /** Messages being sent at once, each in its own transaction (a pooled connection) while it is sent (default 4). */
  concurrency?: number;
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
 * The outbox's two loops, in every instance (rows are claimed with `for update skip locked`):
 *
 * - **seal**: a message group whose window has passed becomes one `deliveries` row per enabled channel and
 *   address, due now, or at the end of the user's quiet hours when they are in them.
 * - **send**: the due pending deliveries of one user, channel and address (one or several groups: a digest) are
 *   locked, merged into one message, sent, and recorded in the same transaction. Telegram and SMTP take no
 *   idempotency key: a crash after the provider accepted and before the commit leaves the rows pending and they
 *   are sent once more after a restart (README, "Duplicates").
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

  /** Seals every group due now, `concurrency` at once (a rate batch makes one per user); how many. */
  async sealDue(): Promise<number> {
    let sealed = 0;
    const drain = async () => {
      while (!this.stopping && (await this.sealOne())) {
        sealed++;
        this.sending.wake();
      }
    };
    const failed = (await Promise.allSettled(Array.from({ length: this.o.concurrency ?? 8 }, drain))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return sealed;
  }

  private sealOne(): Promise<boolean> {
    return this.o.db.transaction(async (tx) => {
      const now = this.o.clock();
      const [group] = await tx.query<{ id: string; user_id: string }>(
        'select id::text, user_id from message_groups where sealed_at is null and due_at <= $1 order by due_at, id limit 1 for update skip locked',
        [now],
      );
      if (!group) return false;
      const settings = await readSettings(tx, group.user_id);
      const at = quietHoursEnd(now, settings.quietHours, settings.timeZone) ?? now;
      for (const sender of this.o.senders) {
        if (!settings.channels[sender.channel]) continue;
        for (const address of new Set(await sender.addresses(tx, group.user_id))) {
          await tx.query(
            'insert into deliveries (group_id, user_id, channel, address, next_attempt_at) values ($1, $2, $3, $4, $5) on conflict (group_id, channel, address) do nothing',
            [group.id, group.user_id, sender.channel, address, at],
          );
        }
      }
      await tx.query('update message_groups set sealed_at = $2 where id = $1', [group.id, now]);
      return true;
    });
  }

  /** Sends what is due now with up to `concurrency` messages at once; how many batches were handled. */
  async sendDue(): Promise<number> {
    let handled = 0;
    const drain = async () => {
      while (!this.stopping && (await this.sendOne())) handled++;
    };
    // Every worker finishes (and records what it sent) before a failure is reported.
    const failed = (await Promise.allSettled(Array.from({ length: this.o.concurrency ?? 8 }, drain))).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return handled;
  }

  /** Claims, sends and records one batch; false when nothing (else) is due for this worker. */
  private sendOne(): Promise<boolean> {
    return this.o.db.transaction(async (tx) => {
      const now = this.o.clock();
      const [head] = await tx.query<{ user_id: string; channel: Batch['channel']; address: string }>(
        "select user_id, channel, address from deliveries where status = 'pending' and next_attempt_at <= $1 order by next_attempt_at, id limit 1 for update skip locked",
        [now],
      );
      if (!head) return false;
      // One message at a time per address, across workers and instances; a worker that finds it taken stops
      // (the one sending there takes what is due after it, or the next poll does).
      const [lock] = await tx.query<{ locked: boolean }>('select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked', [`delivery-send:${head.user_id}:${head.channel}:${head.address}`]);
      if (!lock?.locked) return false;
      // Waiting, not skipping: another worker may hold one of these rows as its head for a moment, until it fails
      // to take the address's lock and lets go. Skipping it would split the message in two.
      const rows = await tx.query<{ id: string; group_id: string; attempts: number }>(
        `select id::text, group_id::text, attempts from deliveries
         where user_id = $1 and channel = $2 and address = $3 and status = 'pending' and next_attempt_at <= $4
         order by id for update`,
        [head.user_id, head.channel, head.address, now],
      );
      const batch: Batch = {
        userId: head.user_id,
        channel: head.channel,
        address: head.address,
        ids: rows.map((r) => r.id),
        groupIds: [...new Set(rows.map((r) => r.group_id))],
        attempts: Math.max(0, ...rows.map((r) => r.attempts)),
      };
      await this.deliver(tx, batch, now);
      return true;
    });
  }

  private async deliver(tx: Tx, batch: Batch, now: Date): Promise<void> {
    const { userId, channel, address } = batch;
    const settings = await readSettings(tx, userId);
    if (!settings.channels[channel]) return this.close(tx, batch, 'skipped', 'The channel was switched off.');
    // Quiet hours set after the message was sealed: it waits for their end too.
    const quietEnd = quietHoursEnd(now, settings.quietHours, settings.timeZone);
    if (quietEnd) return this.postpone(tx, batch, quietEnd);
    const sender = this.o.senders.find((s) => s.channel === channel);
    if (!sender) return this.close(tx, batch, 'skipped', 'The channel is not configured in this deployment.');
    // Unlinked, unsubscribed or replaced since it was sealed: nothing goes to the old address.
    if (!(await sender.addresses(tx, userId)).includes(address)) return this.close(tx, batch, 'skipped', 'The address is no longer in use.');

    const received = await tx.query<{ event: NotificationFiredV1; received_at: Date }>('select event, received_at from received_firings where group_id = any($1::bigint[])', [batch.groupIds]);
    received.sort((a, b) => Date.parse(a.event.firedAt) - Date.parse(b.event.firedAt) || a.event.firingId - b.event.firingId);
    let deliverable: Set<number>;
    try {
      deliverable = await this.o.firings.deliverable(userId, received.map((r) => r.event.firingId));
    } catch (err) {
      // Alerts away: nothing is known about what was switched off; ask again soon, without counting an attempt.
      this.o.logger.warn({ err, deliveries: batch.ids }, 'alerts did not say which firings may go out; the message waits');
      return this.postpone(tx, batch, new Date(now.getTime() + this.retryBaseMs));
    }
    const firings = received.filter((r) => deliverable.has(r.event.firingId));
    if (firings.length === 0) return this.close(tx, batch, 'skipped', 'Every notification of the message was deleted or switched off.');

    const digest = batch.groupIds.length > 1 || firings.some((r) => inQuietHours(new Date(r.received_at), settings.quietHours, settings.timeZone));
    const message = renderMessage({ userId, language: settings.language, firings: firings.map((r) => r.event), digest, publicBaseUrl: this.o.publicBaseUrl });
    let result: SendResult;
    try {
      result = await withTimeout(sender.send(address, message), this.o.sendTimeoutMs ?? 60_000);
    } catch (err) {
      result = { outcome: 'retry', reason: err instanceof Error ? err.message : String(err) };
    }
    await this.record(tx, batch, sender, result, now, firings.length);
  }

  private async record(tx: Tx, batch: Batch, sender: ChannelSender, result: SendResult, now: Date, firings: number): Promise<void> {
    const attempts = batch.attempts + 1;
    const log = { deliveries: batch.ids, channel: batch.channel, userId: batch.userId, attempts };
    switch (result.outcome) {
      case 'sent':
        await tx.query("update deliveries set status = 'sent', attempts = $2, sent_at = $3, provider_id = $4, last_error = null where id = any($1::bigint[])", [
          batch.ids,
          attempts,
          now,
          result.providerId ?? null,
        ]);
        // The channel works again: the settings screen no longer shows its last failure.
        await tx.query('delete from delivery_failures where user_id = $1 and channel = $2', [batch.userId, batch.channel]);
        this.o.logger.debug({ ...log, firings }, 'message sent');
        return;
      case 'retry': {
        if (attempts >= this.maxAttempts) {
          this.o.logger.warn({ ...log, reason: result.reason }, 'message given up after its last attempt');
          return this.fail(tx, batch, attempts, `Gave up after ${attempts} attempts: ${result.reason}`, now);
        }
        const delay = result.afterMs ?? Math.min(this.retryBaseMs * 2 ** (attempts - 1), this.o.retryMaxMs ?? 3_600_000);
        await tx.query('update deliveries set attempts = $2, next_attempt_at = $3, last_error = $4 where id = any($1::bigint[])', [batch.ids, attempts, new Date(now.getTime() + delay), result.reason]);
        this.o.logger.warn({ ...log, reason: result.reason, retryInMs: delay }, 'message not sent; it is tried again');
        return;
      }
      case 'permanent':
        this.o.logger.warn({ ...log, reason: result.reason }, 'message refused for good');
        await this.fail(tx, batch, attempts, result.reason, now);
        await sender.onPermanentFailure?.(tx, batch.userId, batch.address, result.reason);
        return;
    }
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
