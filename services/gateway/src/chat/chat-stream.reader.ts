import { CHAT_STREAMS, type ChatStreamEvent, chatStreamEventSchema, chatStreamSubject } from '@invest/contracts';
import { type Bus, busName, busSubject, connectBus, type Logger } from '@invest/platform';
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
 * Reads answers from CHAT_STREAMS: an ordered consumer filtered to `chat.stream.<messageId>`, starting
 * after the client's Last-Event-ID (a stream sequence), ending after the final event. The chat service
 * keeps generating whatever happens here: a reader going away only stops reading.
 */
export class ChatStreamReader {
  private bus: Promise<Bus> | undefined;

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
    const bus = await this.connection();
    const messages = await retrying(this.opts.openRetryMs ?? 10_000, async () => {
      const consumer = await bus.js.consumers.get(this.streamName(), {
        filter_subjects: busSubject(bus.prefix, chatStreamSubject(messageId)),
        ...(afterSeq > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: afterSeq + 1 } : { deliver_policy: DeliverPolicy.All }),
      });
      // Pulls of 5 s (heartbeats every 2.5 s) instead of 30 s: when the stream's leader moves (a NATS node
      // lost), the ephemeral consumer behind this one is gone, and two missed heartbeats are what makes the
      // client re-create it; an answer should not stall for half a minute meanwhile.
      return consumer.consume({ max_messages: 256, expires: 5_000 });
    });
    const logger = this.opts.logger;
    const close = () => messages.close().then(() => undefined, () => undefined);
    return {
      close,
      /** The events, live, until the final one or `signal`; closes the subscription at the end. */
      async *events(signal: AbortSignal): AsyncGenerator<SequencedEvent> {
        const stop = () => void messages.stop();
        signal.addEventListener('abort', stop, { once: true });
        try {
          if (signal.aborted) return;
          for await (const m of messages) {
            const parsed = chatStreamEventSchema.safeParse(m.json());
            if (!parsed.success) {
              logger.warn({ messageId, seq: m.seq }, 'chat stream: an event not understood was skipped');
              continue;
            }
            yield { seq: m.seq, event: parsed.data };
            if (isFinal(parsed.data)) return;
          }
        } finally {
          signal.removeEventListener('abort', stop);
          await close();
        }
      },
    };
  }

  async close(): Promise<void> {
    const bus = this.bus;
    this.bus = undefined;
    if (bus) await (await bus.catch(() => undefined))?.close();
  }
}

/** Runs `fn` until it succeeds, backing off from 100 ms to 1 s, for at most `forMs`; then throws its last error. */
async function retrying<T>(forMs: number, fn: () => Promise<T>): Promise<T> {
  const until = Date.now() + forMs;
  for (let delay = 100; ; delay = Math.min(1000, delay * 2)) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() + delay > until) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
