import { CHAT_STREAMS, type ChatStreamEvent, chatStreamEventSchema, chatStreamSubject } from '@invest/contracts';
import { type Bus, busName, busSubject, connectBus, type Logger, retryFor } from '@invest/platform';
import { DeliverPolicy } from '@nats-io/jetstream';

/** One event of an answer with its JetStream sequence (the SSE `id:`). */
export interface SequencedEvent {
  seq: number;
  event: ChatStreamEvent;
}

const isFinal = (e: ChatStreamEvent) => e.type === 'done' || e.type === 'error';

/** One reader's subscription to an answer's events. */
export interface AnswerSubscription {
  events(signal: AbortSignal): AsyncGenerator<SequencedEvent>;
  close(): Promise<void>;
}

/**
 * One answer's events as this instance's one consumer of it reads them, kept (an answer is at most
 * MAX_ANSWER_CHARS) for every reader of the answer: each reads them from its own position.
 */
interface AnswerFeed {
  messageId: string;
  events: SequencedEvent[];
  /** The final event arrived, or the consumer ended or failed: nothing more will come. */
  ended: boolean;
  error?: unknown;
  readers: number;
  /** Resolves once the consumer is open (rejects when it could not be). */
  ready: Promise<void>;
  stopConsumer?: () => Promise<void>;
  /** Readers waiting for the next event or the end. */
  waiting: Set<() => void>;
}

/**
 * Reads answers from CHAT_STREAMS: an ordered consumer filtered to `chat.stream.<messageId>`, ending after
 * the final event. Every reader of one answer on this instance (the send's own, resumes from other tabs)
 * shares one consumer, which reads the answer from its first event; a reader starts after its Last-Event-ID
 * (a stream sequence). The consumer closes when the answer's last reader leaves. The chat service keeps
 * generating whatever happens here: a reader going away only stops reading.
 */
export class ChatStreamReader {
  private bus: Promise<Bus> | undefined;
  private readonly feeds = new Map<string, AnswerFeed>();

  constructor(
    private readonly opts: {
      natsUrl: string;
      busPrefix: string;
      logger: Logger;
      /** How long opening an answer's consumer is retried while JetStream does not answer (a node lost; default 10 s). */
      openRetryMs?: number;
    },
  ) {}

  private connection(): Promise<Bus> {
    this.bus ??= connectBus({ natsUrl: this.opts.natsUrl, name: 'gateway-chat-streams', prefix: this.opts.busPrefix }).catch((err: unknown) => {
      this.bus = undefined;
      throw err;
    });
    return this.bus;
  }

  private streamName(): string {
    return busName(this.opts.busPrefix, CHAT_STREAMS.stream);
  }

  /** The stream sequence of this answer's last event in the replay buffer, or null when it holds none any more. */
  async lastEventSeq(messageId: string): Promise<number | null> {
    const bus = await this.connection();
    try {
      // nats.js answers null (not an error) when the subject has no message.
      const last = await bus.jsm.streams.getMessage(this.streamName(), { last_by_subj: busSubject(bus.prefix, chatStreamSubject(messageId)) });
      return last ? last.seq : null;
    } catch {
      return null;
    }
  }

  /**
   * Subscribes to the answer's events after sequence `afterSeq` (0: from its start). Opening before the
   * answer exists is fine (a new message's consumer is opened while the send request is in flight, so the
   * first chunk does not wait for it); `close()` when not read to the end.
   */
  async open(messageId: string, afterSeq: number): Promise<AnswerSubscription> {
    let feed = this.feeds.get(messageId);
    if (!feed) {
      feed = this.startFeed(messageId);
      this.feeds.set(messageId, feed);
    }
    const joined = feed;
    joined.readers++;
    let left = false;
    const leave = async () => {
      if (left) return;
      left = true;
      if (--joined.readers === 0) await this.endFeed(joined);
    };
    try {
      await joined.ready;
    } catch (err) {
      await leave();
      throw err;
    }
    return {
      close: leave,
      /** The events after `afterSeq`, live, until the final one or `signal`; leaves the answer at the end. */
      async *events(signal: AbortSignal): AsyncGenerator<SequencedEvent> {
        let next = 0;
        try {
          for (;;) {
            if (signal.aborted) return;
            while (next < joined.events.length) {
              const e = joined.events[next++]!;
              if (e.seq <= afterSeq) continue;
              yield e;
              if (isFinal(e.event)) return;
              if (signal.aborted) return;
            }
            if (joined.error) throw joined.error;
            if (joined.ended) return;
            await new Promise<void>((resolve) => {
              const wake = () => {
                signal.removeEventListener('abort', wake);
                joined.waiting.delete(wake);
                resolve();
              };
              joined.waiting.add(wake);
              signal.addEventListener('abort', wake, { once: true });
            });
          }
        } finally {
          await leave();
        }
      },
    };
  }

  /** Opens the answer's consumer (from its first event) and copies what it reads into the feed until the final event. */
  private startFeed(messageId: string): AnswerFeed {
    const feed: AnswerFeed = { messageId, events: [], ended: false, readers: 0, ready: Promise.resolve(), waiting: new Set() };
    const wake = () => {
      for (const w of [...feed.waiting]) w();
    };
    feed.ready = (async () => {
      const bus = await this.connection();
      const { consumer, messages } = await retryFor(this.opts.openRetryMs ?? 10_000, async () => {
        const consumer = await bus.js.consumers.get(this.streamName(), {
          filter_subjects: busSubject(bus.prefix, chatStreamSubject(messageId)),
          deliver_policy: DeliverPolicy.All,
        });
        // Pulls of 5 s (heartbeats every 2.5 s) instead of 30 s: when the stream's leader moves (a NATS node
        // lost), the ephemeral consumer behind this one is gone, and two missed heartbeats are what makes the
        // client re-create it; an answer should not stall for half a minute meanwhile.
        return { consumer, messages: await consumer.consume({ max_messages: 256, expires: 5_000 }) };
      });
      feed.stopConsumer = async () => {
        await messages.close().catch(() => undefined);
        // An ordered consumer would otherwise stay on the server for its 5 minutes of inactivity.
        void consumer.delete().catch(() => undefined);
      };
      void (async () => {
        try {
          for await (const m of messages) {
            const parsed = chatStreamEventSchema.safeParse(m.json());
            if (!parsed.success) {
              this.opts.logger.warn({ messageId, seq: m.seq }, 'chat stream: an event not understood was skipped');
              continue;
            }
            feed.events.push({ seq: m.seq, event: parsed.data });
            wake();
            if (isFinal(parsed.data)) break;
          }
        } catch (err) {
          if (!feed.ended) feed.error = err;
        } finally {
          await this.endFeed(feed);
          wake();
        }
      })();
    })();
    feed.ready.catch(() => {
      feed.ended = true;
      if (this.feeds.get(messageId) === feed) this.feeds.delete(messageId);
    });
    return feed;
  }

  /** The feed reads nothing more: its consumer is closed and a later reader of the answer opens a new one. */
  private async endFeed(feed: AnswerFeed): Promise<void> {
    if (this.feeds.get(feed.messageId) === feed) this.feeds.delete(feed.messageId);
    if (feed.ended) return;
    feed.ended = true;
    await feed.ready.catch(() => undefined);
    await feed.stopConsumer?.();
  }

  async close(): Promise<void> {
    const feeds = [...this.feeds.values()];
    for (const feed of feeds) await this.endFeed(feed);
    const bus = this.bus;
    this.bus = undefined;
    if (bus) await (await bus.catch(() => undefined))?.close();
  }
}
