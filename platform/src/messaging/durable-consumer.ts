import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { type BusEvent, busEventSchema, CORRELATION_HEADER } from '@invest/contracts';
import { runWithContext } from '../context/request-context.js';
import type { Db, Tx } from '../db/database.js';
import type { Logger } from '../logging/logger.js';
import type { Bus } from './bus.js';
import { busName, busSubject } from './bus-prefix.js';

export interface DurableConsumerOptions {
  db: Db;
  bus: Bus;
  /** Stream to read (full name, e.g. from `streamNameOf`). */
  stream: string;
  /** `<consumer>__<purpose>`, e.g. `alerts__rates-updated`; the bus prefix is added. */
  durableName: string;
  /** Subject filter without the bus prefix (one subject: nats-server 2.9 has no multi-filter). */
  filterSubject?: string;
  /** Applies the event's effect inside the transaction that also records it in the inbox. */
  handle(event: BusEvent, tx: Tx): Promise<void>;
  logger: Logger;
  ackWaitMs?: number;
  maxDeliver?: number;
  /** Test hook: runs after the effect committed and before the ack. */
  afterCommit?(event: BusEvent): Promise<void> | void;
}

export type ProcessOutcome = 'applied' | 'duplicate' | 'invalid' | 'failed';

/**
 * A durable pull consumer with an inbox: the effect and the inbox row (consumer, message id) commit in
 * one transaction, then the message is acked. A redelivery of a message whose effect committed (a crash
 * before the ack, or a duplicate publish) finds the inbox row and is only acked.
 */
export class DurableConsumer {
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly name: string;

  constructor(private readonly opts: DurableConsumerOptions) {
    this.name = busName(opts.bus.prefix, opts.durableName);
  }

  /** Creates the durable consumer on the server if missing (idempotent). */
  async ensure(): Promise<void> {
    const { bus, stream } = this.opts;
    const config = {
      durable_name: this.name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: (this.opts.ackWaitMs ?? 30_000) * 1_000_000,
      max_deliver: this.opts.maxDeliver ?? 20,
      ...(this.opts.filterSubject ? { filter_subject: busSubject(bus.prefix, this.opts.filterSubject) } : {}),
    };
    try {
      await bus.jsm.consumers.info(stream, this.name);
      await bus.jsm.consumers.update(stream, this.name, { ack_wait: config.ack_wait, max_deliver: config.max_deliver });
    } catch (err) {
      if (!/not found/i.test(String((err as Error).message))) throw err;
      await bus.jsm.consumers.add(stream, config);
    }
  }

  async start(): Promise<void> {
    await this.ensure();
    const consumer = await this.opts.bus.js.consumers.get(this.opts.stream, this.name);
    this.messages = await consumer.consume({ max_messages: 100 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) await this.process(msg);
    })().catch((err) => this.opts.logger.error({ err, consumer: this.name }, 'consumer loop ended with an error'));
  }

  /** Handles one message end to end; exposed for tests. */
  async process(msg: JsMsg): Promise<ProcessOutcome> {
    const { db, logger, handle } = this.opts;
    let event: BusEvent;
    try {
      event = busEventSchema.parse(msg.json()) as BusEvent;
    } catch (err) {
      // A malformed message never becomes valid: park it for inspection instead of redelivering forever.
      logger.error({ err, consumer: this.name, subject: msg.subject, seq: msg.seq }, 'consumer: malformed message terminated');
      msg.term('malformed');
      return 'invalid';
    }
    // The event id, not the JetStream sequence: a re-publish after the duplicate window is still the same event.
    const messageId = event.id;
    const correlationId = msg.headers?.get(CORRELATION_HEADER) || String(event.metadata.correlationId ?? event.id);
    return runWithContext({ correlationId }, async () => {
      try {
        const applied = await db.transaction(async (tx) => {
          const fresh = await tx.query('insert into es_inbox (consumer, message_id) values ($1, $2) on conflict do nothing returning 1', [
            this.opts.durableName,
            messageId,
          ]);
          if (fresh.length === 0) return false;
          await handle(event, tx);
          return true;
        });
        await this.opts.afterCommit?.(event);
        msg.ack();
        if (!applied) logger.debug({ consumer: this.name, messageId }, 'consumer: duplicate delivery acked without effect');
        return applied ? 'applied' : 'duplicate';
      } catch (err) {
        const attempt = msg.info.deliveryCount;
        const last = attempt >= (this.opts.maxDeliver ?? 20);
        logger.error({ err, consumer: this.name, type: event.type, eventId: event.id, attempt }, last ? 'consumer: giving up on message' : 'consumer: handler failed; will retry');
        if (last) msg.term('handler failed too often');
        else msg.nak(Math.min(60_000, 500 * 2 ** (attempt - 1)));
        return 'failed';
      }
    });
  }

  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
  }
}
