import { type ChatSource, type ChatStreamEvent, type ChatUsage, chatStreamSubject } from '@invest/contracts';
import { type Bus, busSubject, type Db, type Logger, retryFor } from '@invest/platform';
import type { ChatModel, ModelMessage, ModelRequest, ModelToolCall, ModelToolDefinition } from './chat-model.js';
import { answerEnded, answerStarted, countModelError, countTokens, observeFirstChunk } from './chat.metrics.js';
import { ChunkText, coalesceChunks, eventPieces, MAX_ANSWER_CHARS } from './chunk-text.js';
import { estimateUsage, UsageTally } from './usage-tally.js';

export interface AnswerJob {
  messageId: string;
  userMessageId: string;
  request: ModelRequest;
  /** When the assistant message was stored (latency is measured from here). */
  startedAt: Date;
  /** Start of the limit period the answer's reservation was made in (given back if the answer fails empty). */
  periodStart: Date;
  /** Answers left in the period once this one is settled (null: unlimited). */
  remaining(): Promise<number | null>;
  /** The tools the model may call for this answer's user (absent: none offered). */
  tools?: AnswerTools;
}

/** Tool calling of one answer: what is offered, how many rounds at most, and how a call is run (as the answer's user). */
export interface AnswerTools {
  definitions: ModelToolDefinition[];
  /** Tool rounds per answer at most; the call after the last round offers no tools, so the model answers in text. */
  maxRounds: number;
  /** Never throws: a refusal or failure is a result the model reads. */
  execute(call: ModelToolCall): Promise<{ content: string; source?: ChatSource }>;
}

type EndReason = 'stop' | 'idle' | 'shutdown' | 'too_long';

interface Running {
  controller: AbortController;
  reason?: EndReason;
  finished: Promise<void>;
}

export { estimateUsage } from './usage-tally.js';

/** How long a finished answer waits for the model's usage and `[DONE]` before it is settled without them. */
const FINISHED_GRACE_MS = 2_000;

const UPSERT_TOKENS =
  'insert into chat_token_usage (message_id, user_id, period_start, prompt_tokens, completion_tokens, total_tokens, estimated, recorded_at)';
const ON_CONFLICT_SET_TOKENS = `on conflict (message_id) do update set prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
  total_tokens = excluded.total_tokens, estimated = excluded.estimated, recorded_at = excluded.recorded_at`;

/**
 * Writes an answer's usage so far while it streams (the token budget), one write at a time, the newest total last.
 * A server sending running usage on every chunk costs a write per finished write, not per chunk.
 */
class TokenUsageWriter {
  private latest: ChatUsage | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly db: Db,
    private readonly job: AnswerJob,
    private readonly logger: Logger,
    private readonly clock: () => Date,
  ) {}

  write(usage: ChatUsage): void {
    this.latest = usage;
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Resolves when no write is in flight (the settle writes the final total after it). */
  async flushed(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.latest) {
      const u = this.latest;
      this.latest = undefined;
      // Only while the answer streams: once settled, its final total is written by the settle.
      await this.db
        .query(
          `${UPSERT_TOKENS} select id, user_id, $2::timestamptz, $3::int, $4::int, $5::int, $6::boolean, $7::timestamptz from chat_messages where id = $1 and status = 'streaming' ${ON_CONFLICT_SET_TOKENS}`,
          [this.job.messageId, this.job.periodStart.toISOString(), u.prompt_tokens, u.completion_tokens, u.total_tokens, u.estimated, this.clock().toISOString()],
        )
        .catch((err: unknown) => this.logger.warn({ err, messageId: this.job.messageId }, 'chat: recording the running token usage failed; the settle records it'));
    }
  }
}

/**
 * Runs model calls in the background, independent of any HTTP connection: every event of an answer is
 * published on `chat.stream.<messageId>` (JetStream, replayable by sequence), and the assistant message is
 * completed in the database before its final `done`/`error` event.
 */
export class AnswerGenerator {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly deps: {
      db: Db;
      bus: Bus;
      model: ChatModel;
      logger: Logger;
      clock: () => Date;
      idleTimeoutMs: number;
      /** How long one stream event is retried while JetStream does not store it (default 30 s). */
      publishRetryMs?: number;
    },
  ) {}

  start(job: AnswerJob): void {
    const controller = new AbortController();
    const entry: Running = { controller, finished: Promise.resolve() };
    answerStarted();
    entry.finished = this.run(job, entry).finally(() => {
      this.running.delete(job.messageId);
      answerEnded();
    });
    this.running.set(job.messageId, entry);
  }

  isRunning(messageId: string): boolean {
    return this.running.has(messageId);
  }

  /** Stops a local generation (the abort reaches the model server); resolves once the message is settled. */
  async stop(messageId: string): Promise<boolean> {
    const r = this.running.get(messageId);
    if (!r) return false;
    r.reason ??= 'stop';
    r.controller.abort();
    await r.finished;
    return true;
  }

  /**
   * Shutdown: running answers get up to `drainMs` to finish; those still running then are abandoned as
   * failed (saying so) and settled.
   */
  async stopAll(drainMs = 0): Promise<void> {
    if (drainMs > 0 && this.running.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const drained = Promise.allSettled([...this.running.values()].map((r) => r.finished));
      await Promise.race([drained, new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)))]);
      clearTimeout(timer);
    }
    const all = [...this.running.values()];
    for (const r of all) {
      r.reason ??= 'shutdown';
      r.controller.abort();
    }
    await Promise.allSettled(all.map((r) => r.finished));
  }

  private async run(job: AnswerJob, entry: Running): Promise<void> {
    const { bus, logger, model } = this.deps;
    const subject = busSubject(bus.prefix, chatStreamSubject(job.messageId));
    // Events go out one after another, each retried until JetStream stores it: a publish fails while the
    // stream has no leader (a NATS node lost, an election running), and a lost event, above all the final
    // `done`, would leave the reader waiting for good; a skipped chunk, or chunks out of order, garble the
    // text. The model loop never waits for this. The msgID makes a retry after a lost ack harmless.
    // Chunks that arrive while a publish waits for its ack go out together as one event when it is stored:
    // an idle bus publishes each chunk at once, a loaded one publishes fewer, larger ones instead of falling
    // further behind the model (100 answers at 100 chunks/s had lagged it by seconds).
    const queue: ChatStreamEvent[] = [];
    let publishing = false;
    let published = Promise.resolve();
    let sequence = 0;
    const publishQueued = async () => {
      try {
        while (queue.length > 0) {
          const event = coalesceChunks(queue);
          const data = JSON.stringify(event);
          const msgID = `${job.messageId}:${sequence++}`;
          await retryFor(this.deps.publishRetryMs ?? 30_000, () => bus.js.publish(subject, data, { msgID })).catch((err: unknown) =>
            logger.error({ err, messageId: job.messageId, event: event.type }, 'chat: publishing a stream event failed'),
          );
        }
      } finally {
        publishing = false;
      }
    };
    const publish = (event: ChatStreamEvent) => {
      queue.push(event);
      if (publishing) return;
      publishing = true;
      published = publishQueued();
    };
    publish({ type: 'start', data: { message_id: job.messageId, user_message_id: job.userMessageId } });

    let content = '';
    // Every model call of the answer counts (a tool round is a call of its own).
    const usage = new UsageTally();
    // The usage is written as it arrives (a crash after the model reported it still leaves it counted) and again,
    // final, when the answer settles; the row is the answer's, so the writes set its total and never add twice.
    const tokens = new TokenUsageWriter(this.deps.db, job, logger, this.deps.clock);
    let finished = false;
    let firstChunkMs: number | null = null;
    let error: unknown;
    let idle: NodeJS.Timeout | undefined;
    const armIdle = (ms = this.deps.idleTimeoutMs) => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        // After the model finished, waiting for its `[DONE]` (or its usage) is all that is cut: the answer is whole.
        if (!finished) entry.reason ??= 'idle';
        entry.controller.abort();
      }, ms);
    };
    // What streams is what is stored (chunk-text.ts), in events JetStream takes (a chunk of over 1 MB was refused for
    // the whole retry window, then skipped).
    const chunks = new ChunkText();
    const emit = (given: string) => {
      // An answer longer than MAX_ANSWER_CHARS is cut there and the model call ended: it would not fit one message of
      // the chat's pages (`chat.chats.get`), and no model's answer is that long on purpose.
      const text = given.slice(0, Math.max(0, MAX_ANSWER_CHARS - content.length));
      if (text.length < given.length) {
        entry.reason ??= 'too_long';
        entry.controller.abort();
      }
      if (!text) return;
      if (firstChunkMs === null) {
        firstChunkMs = this.deps.clock().getTime() - job.startedAt.getTime();
        observeFirstChunk(firstChunkMs);
      }
      content += text;
      for (const piece of eventPieces(text)) publish({ type: 'chunk', data: { content: piece } });
    };
    // The conversation of this answer: the request's messages, then each tool round's call and results.
    const messages: ModelMessage[] = [...job.request.messages];
    const sources: ChatSource[] = [];
    let rounds = 0;
    let roundText = '';
    try {
      armIdle();
      for (;;) {
        finished = false;
        roundText = '';
        let toolCalls: ModelToolCall[] | undefined;
        const tools = job.tools && rounds < job.tools.maxRounds ? job.tools : undefined;
        const request: ModelRequest = { ...job.request, messages, ...(tools ? { tools: tools.definitions } : {}) };
        for await (const chunk of model.stream(request, entry.controller.signal)) {
          if (entry.controller.signal.aborted) break;
          if (chunk.toolCalls) toolCalls = chunk.toolCalls;
          if (chunk.content) roundText += chunk.content;
          // Only an answer's progress keeps the idle timer off: a server sending usage alone (running usage) for
          // ever held the answer streaming, and its place in the limit, with no end.
          if (chunk.usage) {
            usage.report(chunk.usage);
            tokens.write(usage.total());
          }
          if (chunk.finished) finished = true;
          if (chunk.content) emit(chunks.push(chunk.content));
          // Once finished, only the usage (or `[DONE]`) may follow: a server that leaves the stream open is not waited
          // for long.
          if (chunk.content || chunk.finished) armIdle(finished ? Math.min(FINISHED_GRACE_MS, this.deps.idleTimeoutMs) : undefined);
        }
        if (!tools || !toolCalls || !finished || entry.reason || entry.controller.signal.aborted) break;
        // A tool round: the model's calls are run (as the answer's user) and it is asked again with their results. The
        // whole answer is still one message of the limit; each call of the model counts in the usage.
        usage.endCall(() => estimateUsage({ messages }, roundText));
        rounds++;
        messages.push({ role: 'assistant', content: roundText, toolCalls });
        // The calls read the user's data, not the model: silence while they run is not the model's.
        clearTimeout(idle);
        for (const call of toolCalls) {
          const outcome = await tools.execute(call);
          if (outcome.source) sources.push(outcome.source);
          messages.push({ role: 'tool', toolCallId: call.id, content: outcome.content });
        }
        if (entry.controller.signal.aborted) break;
        armIdle();
      }
      // A stream that ended without the model finishing was cut off (the connection closed before `[DONE]`), and
      // an answer of nothing is none: failed, so not counted, rather than shown complete and charged.
      if (!entry.reason && !finished) error = new Error('The model stream ended before the answer was finished.');
    } catch (err) {
      // Once the model finished its answer, a transport error after it (a reset before `[DONE]`, our own abort of a
      // stream left open) loses nothing.
      if (!finished) error = err;
    } finally {
      clearTimeout(idle);
    }
    emit(chunks.end());
    if (!error && !entry.reason && !content) error = new Error('The model answered nothing.');

    const reason = entry.reason;
    const status = reason === 'stop' ? 'stopped' : reason || error ? 'failed' : 'complete';
    const errorText =
      status !== 'failed'
        ? null
        : reason === 'idle'
          ? `The model sent nothing for ${this.deps.idleTimeoutMs} ms.`
          : reason === 'shutdown'
            ? 'The chat service stopped.'
            : reason === 'too_long'
              ? `The answer was longer than ${MAX_ANSWER_CHARS} characters; it ends there.`
              : describe(error).replaceAll('\u0000', '');
    usage.endCall(() => estimateUsage({ messages }, roundText));
    const finalUsage = usage.total();
    await tokens.flushed();
    const now = this.deps.clock();
    // Settling the message and giving back its reservation is one statement: the count can never disagree with
    // the messages. Only an answer that failed before the model sent anything is given back (chat-limits.ts): a
    // stopped one counts even when empty, or stopping every answer at its first event was a model call for free.
    // The answer's tokens are recorded in the same statement, once (the update finds it `streaming` once): what the
    // model reported, or the estimate, except for an answer given back (failed before the model sent anything) that
    // the model reported nothing for.
    const settle = (to: string, text: string, why: string | null, release: boolean) =>
      this.deps.db.query(
        `with m as (
           update chat_messages set status = $2, content = $3, usage = $4::jsonb, latency_ms = $5, first_chunk_ms = $6, error = $7, completed_at = $8, sources = $12::jsonb
            where id = $1 and status = 'streaming'
           returning user_id, context_type
         ), t as (
           ${UPSERT_TOKENS} select $1::uuid, m.user_id, $9::timestamptz, ($4::jsonb->>'prompt_tokens')::int, ($4::jsonb->>'completion_tokens')::int,
                  ($4::jsonb->>'total_tokens')::int, ($4::jsonb->>'estimated')::boolean, $8::timestamptz from m
            where not ($10::boolean and $11::boolean)
           ${ON_CONFLICT_SET_TOKENS}
         )
         update chat_usage u set used = u.used - 1 from m
          where u.user_id = m.user_id and u.context_type = m.context_type and u.period_start = $9 and $10::boolean and u.used > 0`,
        [
          job.messageId,
          to,
          text,
          JSON.stringify(finalUsage),
          Math.max(0, now.getTime() - job.startedAt.getTime()),
          firstChunkMs,
          why,
          now.toISOString(),
          job.periodStart.toISOString(),
          release,
          !usage.reported,
          JSON.stringify(sources),
        ],
      );
    // The model's failures, not ours (a shutdown) nor the length cap.
    if (status === 'failed' && (reason === 'idle' || (!reason && error))) countModelError();
    let stored = true;
    try {
      const release = status === 'failed' && content === '';
      await settle(status, content, errorText, release);
      // What the statement recorded for the token budget.
      if (!(release && !usage.reported)) countTokens(finalUsage);
    } catch (err) {
      stored = false;
      logger.error({ err, messageId: job.messageId }, 'chat: storing the answer failed');
      // Settled as failed without its content, and the reservation given back, so a reload shows a failed
      // answer rather than one streaming for good (if the database is away, the orphan sweep does it later).
      await settle('failed', '', 'The answer could not be stored.', true).catch((e: unknown) =>
        logger.error({ err: e, messageId: job.messageId }, 'chat: settling the unstored answer as failed failed too; the orphan sweep will'),
      );
    }
    // An answer that could not be stored is not reported done: the reader would show what no reload finds.
    if (status === 'failed' || !stored) {
      if (status === 'failed') logger.warn({ messageId: job.messageId, model: job.request.model, err: error, reason }, 'chat: the model call failed');
      publish({ type: 'error', data: { message_id: job.messageId, message: 'The assistant could not answer. Please try again.' } });
    } else {
      const remaining = await job.remaining().catch(() => null);
      publish({ type: 'done', data: { message_id: job.messageId, status, usage: finalUsage, remaining, sources } });
      logger.info({ messageId: job.messageId, status, usage: finalUsage, firstChunkMs }, 'chat: answer finished');
    }
    await published;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const status = (err as { status?: unknown }).status;
    return `${err.name}${typeof status === 'number' ? ` ${status}` : ''}: ${err.message}`.slice(0, 500);
  }
  return String(err).slice(0, 500);
}
