import { randomUUID } from 'node:crypto';
import {
  type ChatLimitsReply,
  type ChatReply,
  type ChatStreamEvent,
  type ChatMessageView,
  type ChatWithMessagesPageReply,
  chatIdRequestSchema,
  chatStreamSubject,
  createChatRequestSchema,
  getChatRequestSchema,
  type MessageReply,
  messageRefRequestSchema,
  type Page,
  pageMeta,
  pageQuerySchema,
  rateMessageRequestSchema,
  type SendMessageReply,
  type SendMessageRequest,
  sendMessageRequestSchema,
  Subjects,
  updateChatRequestSchema,
} from '@invest/contracts';
import {
  type Bus,
  busSubject,
  type Db,
  type FinishIdempotent,
  idempotent,
  type Logger,
  parseOrThrow,
  requestFingerprint,
  retryFor,
  type RpcClient,
  ServiceError,
  type SqlClient,
} from '@invest/platform';
import type { AnswerGenerator } from '../generation/answer-generator.js';
import type { ModelMessage } from '../generation/chat-model.js';
import { ChatLimits } from '../limits/chat-limits.js';
import { dayPeriod } from '../limits/limit-period.js';
import { requireTokenBudget, tokenBudgetState } from '../limits/token-budget.js';
import type { ChatRef } from '../providers/context-provider.js';
import type { ContextProviders } from '../providers/context-providers.js';
import type { ToolExecutor } from '../tools/tool-executor.js';
import { titleFromMessage } from './chat-title.js';
import { CHAT_COLUMNS, type ChatRow, chatView, MESSAGE_COLUMNS, type MessageRow, messageView } from './chat.views.js';

/** A page of `chat.chats.get`: at most this many messages, and about this many bytes (an answer is at most MAX_ANSWER_CHARS). */
const PAGE_MESSAGES = 200;
const PAGE_BYTES = 512 * 1024;

/** The model sees the chat's newest messages, at most this many (spec). */
export const HISTORY_LIMIT = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Control subject on which every chat instance hears stop requests for answers it generates. */
export const STOP_CONTROL_SUBJECT = 'chat.control.stop';
/** Control subject on which the instance generating an answer says so (the orphan sweep asks before settling). */
export const RUNNING_CONTROL_SUBJECT = 'chat.control.running';

export interface ChatServiceDeps {
  db: Db;
  bus: Bus;
  rpc: RpcClient;
  providers: ContextProviders;
  limits: ChatLimits;
  generator: AnswerGenerator;
  clock: () => Date;
  logger: Logger;
  /** Runs the model's tool calls as the answering user (absent, or `toolRounds` 0: no tools are offered). */
  tools?: ToolExecutor;
  toolRounds?: number;
}

/** Appended to every provider's system prompt when tools are offered (the provider's content stays as it is). */
export const TOOLS_PROMPT = [
  '',
  'Tools: you can read the user\'s own data with the tools offered (portfolios, positions and totals, an asset\'s',
  'rate, price history and dividends, alerts). Every figure you give must come from the data above or from a tool',
  'result; when a figure is not there, call a tool or say you do not know it. A tool result with an "error" means the',
  'data is not available to this user: say so and never guess it.',
].join('\n');

/** Chats, messages, answers and limits of the signed-in user (every query is scoped by user id). */
export class ChatService {
  constructor(private readonly d: ChatServiceDeps) {}

  async create(userId: string, input: unknown): Promise<ChatReply> {
    const req = parseOrThrow(createChatRequestSchema, input);
    const provider = this.d.providers.require(req.context_type);
    const contextId = await provider.openChat({ userId, contextId: req.context_id }, { rpc: this.d.rpc });
    // A chat with a context (a portfolio) is one per user: opening it again continues it. The unique index
    // (0005) settles concurrent opens: one inserts, the others find its chat. Support chats are always new.
    for (let attempt = 0; ; attempt++) {
      const now = this.d.clock().toISOString();
      const [row] = await this.d.db.query<ChatRow>(
        `insert into chats (id, user_id, context_type, context_id, title, created_at, updated_at) values ($1, $2, $3, $4, null, $5, $5)
          on conflict (user_id, context_type, context_id) where context_id is not null and deleted_at is null do nothing
          returning ${CHAT_COLUMNS}`,
        [randomUUID(), userId, provider.type, contextId, now],
      );
      if (row) return { data: chatView(row) };
      const [existing] = await this.d.db.query<ChatRow>(
        `select ${CHAT_COLUMNS} from chats where user_id = $1 and context_type = $2 and context_id = $3 and deleted_at is null`,
        [userId, provider.type, contextId],
      );
      if (existing) return { data: chatView(existing) };
      // Deleted between the two statements: insert again.
      if (attempt >= 2) throw new Error('chat: could not open the chat of this context');
    }
  }

  async list(userId: string, input: unknown): Promise<Page<ReturnType<typeof chatView>>> {
    const q = parseOrThrow(pageQuerySchema, input ?? {});
    const rows = await this.d.db.query<ChatRow & { total: number }>(
      `select ${CHAT_COLUMNS}, count(*) over ()::int as total from chats where user_id = $1 and deleted_at is null
        order by updated_at desc, id limit $2 offset $3`,
      [userId, q.per_page, (q.page - 1) * q.per_page],
    );
    let total = rows[0]?.total ?? 0;
    if (rows.length === 0 && q.page > 1) {
      const [c] = await this.d.db.query<{ n: number }>('select count(*)::int as n from chats where user_id = $1 and deleted_at is null', [userId]);
      total = c?.n ?? 0;
    }
    return { data: rows.map(chatView), meta: pageMeta(q, total, rows.length) };
  }

  /** One page of the chat's messages (`getChatRequestSchema`): whole messages up to ~512 KB, at least one. */
  async get(userId: string, input: unknown): Promise<ChatWithMessagesPageReply> {
    const req = parseOrThrow(getChatRequestSchema, input);
    const chat = await this.ownChat(userId, req.id);
    const rows = await this.d.db.query<MessageRow & { seq: number }>(
      `select ${MESSAGE_COLUMNS}, seq from chat_messages where chat_id = $1 and seq > $2 order by seq limit ${PAGE_MESSAGES + 1}`,
      [chat.id, req.after_seq ?? 0],
    );
    const messages: ChatMessageView[] = [];
    let bytes = 0;
    let last = 0;
    for (const row of rows.slice(0, PAGE_MESSAGES)) {
      const view = messageView(row);
      bytes += Buffer.byteLength(JSON.stringify(view));
      if (messages.length > 0 && bytes > PAGE_BYTES) break;
      messages.push(view);
      last = Number(row.seq);
    }
    return { data: { ...chatView(chat), messages }, next_after_seq: messages.length < rows.length ? last : null };
  }

  async update(userId: string, input: unknown): Promise<ChatReply> {
    const req = parseOrThrow(updateChatRequestSchema, input);
    await this.ownChat(userId, req.id);
    const [row] = await this.d.db.query<ChatRow>(`update chats set title = $2, updated_at = $3 where id = $1 returning ${CHAT_COLUMNS}`, [req.id, req.title, this.d.clock().toISOString()]);
    return { data: chatView(row!) };
  }

  async delete(userId: string, input: unknown): Promise<{ deleted: true }> {
    const chat = await this.ownChat(userId, parseOrThrow(chatIdRequestSchema, input).id);
    // Soft delete: its answers keep counting against today's limit.
    await this.d.db.query('update chats set deleted_at = $2 where id = $1', [chat.id, this.d.clock().toISOString()]);
    // An answer still streaming is stopped: nobody can reach it to stop it any more, and the model call would go
    // on (and be charged) for a chat that is gone.
    const streaming = await this.d.db.query<{ id: string }>(
      "select id from chat_messages where chat_id = $1 and role = 'assistant' and status = 'streaming'",
      [chat.id],
    );
    for (const m of streaming) await this.stopAnswer(m);
    return { deleted: true };
  }

  /**
   * Stores the user's message and the assistant's (streaming) one, then starts the model call in the
   * background and answers at once; the answer's events follow on `chat.stream.<messageId>`.
   * Over the period's limit: 429 before anything is stored or any model is called. A repeat with the same
   * `Idempotency-Key` is answered the first reply (its answer's id), and nothing is stored or called again.
   */
  async send(userId: string, input: unknown, idempotencyKey?: string): Promise<SendMessageReply> {
    const req = parseOrThrow(sendMessageRequestSchema, input);
    // The key names the question, not the gateway's name for the answer (a new one on every try): a repeat gets
    // the first try's answer, before any check (the chat, the limit), as a create's repeat gets its first response.
    const subject = Subjects.chat.messagesSend;
    const idempotency = { scope: subject, userId, key: idempotencyKey, fingerprint: requestFingerprint(subject, { chat_id: req.chat_id, message: req.message, context_data: req.context_data }) };
    // A refused send (404, 429) leaves the key unused; a repeat racing the first waits for it and gets its reply,
    // and starts no model call of its own. Unless that answer failed (given back to the limit unless the model had
    // sent part of it): then the key is freed and the question asked again.
    return idempotent<SendMessageReply>(this.d.db, idempotency, (finish) => this.ask(userId, req, idempotencyKey === undefined ? undefined : finish), {
      status: 200,
      outdated: (replied) => this.answerFailed(userId, replied.message_id),
    });
  }

  /**
   * A send's work: stores the question and the answer's row (reserving the answer) and starts the model call.
   * `finish`: with an `Idempotency-Key`, stores the reply with the key in the same transaction.
   */
  private async ask(userId: string, req: SendMessageRequest, finish: FinishIdempotent<SendMessageReply> | undefined): Promise<SendMessageReply> {
    // The entitlements depend on the user only: read them while the chat is looked up.
    this.d.limits.prefetch(userId);
    const today = this.d.limits.period();
    const { chat, history: earlier, tokensUsed } = await this.ownChatWithHistory(userId, req.chat_id, today.start);
    const provider = this.d.providers.require(chat.context_type);
    const clientData = provider.parseClientData(req.context_data);
    const ref: ChatRef = { id: chat.id, userId, contextType: chat.context_type, contextId: chat.context_id };
    // Independent reads side by side: with the statement below they are the time before the model is called.
    // The day's token budget is checked here, before anything is stored: concurrent sends under it all go ahead (an
    // answer's cost is known only when it ends), so the day can end over it by the answers already running.
    const [limit, loaded, tokenBudget] = await Promise.all([
      this.d.limits.limitFor(userId, provider),
      provider.load(ref, { rpc: this.d.rpc }),
      this.d.limits.tokenBudgetFor(userId),
    ]);
    requireTokenBudget(tokenBudgetState(tokenBudget, tokensUsed, today.resetsAt));
    const model = this.d.providers.modelFor(provider);
    const userMessageId = randomUUID();
    const messageId = req.message_id ?? randomUUID();

    const now = this.d.clock();
    // The assistant's row is a millisecond later, so the two always sort user-first by time as well.
    const startedAt = new Date(now.getTime() + 1);
    // The day of the answer's row: an orphaned answer gives its reservation back to the day its row names (a send
    // at 23:59:59.999 had reserved on one day and given back on the next).
    const period = dayPeriod(startedAt, this.d.limits.marketTz);
    // One statement (in a transaction only with an Idempotency-Key, below): the upsert reserves one answer of the
    // period (its row lock serialises the user's concurrent sends and its WHERE sees the latest count), and the
    // messages are stored only when the reservation was made. Over the limit nothing is stored and no model is called.
    // The chat's row is locked first: a delete racing this send waits for it (and then stops its answer), or came
    // first and nothing is stored (an answer streaming for a deleted chat could not be stopped any more).
    const store = (client: SqlClient) => client.query<{ reserved: number | null; live: boolean }>(
      `with live as (
         select 1 from chats where id = $3 and deleted_at is null for update
       ), reserve as (
         insert into chat_usage (user_id, context_type, period_start, used)
         select $4, $5, $11, 1 where exists (select 1 from live) and ($12::int is null or $12::int > 0)
         on conflict (user_id, context_type, period_start) do update set used = chat_usage.used + 1
          where $12::int is null or chat_usage.used < $12::int
         returning used
       ), ins as (
         insert into chat_messages (id, chat_id, user_id, context_type, role, content, status, model, created_at, completed_at)
         select v.* from (values ($1::uuid, $3::uuid, $4, $5, 'user', $6, 'complete', null::text, $7::timestamptz, $7::timestamptz),
                                 ($2::uuid, $3::uuid, $4, $5, 'assistant', '', 'streaming', $8, $9::timestamptz, null::timestamptz)) v
          where exists (select 1 from reserve)
         returning 1
       ), upd as (
         update chats set title = coalesce(title, $10), updated_at = $7 where id = $3 and exists (select 1 from ins)
       )
       select (select used from reserve) as reserved, exists (select 1 from live) as live`,
      [userMessageId, messageId, chat.id, userId, provider.type, req.message, now.toISOString(), model, startedAt.toISOString(), titleFromMessage(req.message), period.start.toISOString(), limit],
      // A fixed text on the hot path: planned once per pooled connection (outside a transaction).
      { prepare: true },
    );
    const requireStored = ([row]: { reserved: number | null; live: boolean }[]) => {
      if (!row?.live) throw ServiceError.notFound('The chat');
      if (row.reserved === null || row.reserved === undefined) {
        ChatLimits.requireRemaining({ limit, used: limit ?? 0, resetsAt: period.resetsAt }, provider);
        throw new Error('chat: no reservation although the limit allows one');
      }
    };
    const reply: SendMessageReply = { chat_id: chat.id, message_id: messageId, user_message_id: userMessageId, stream_subject: chatStreamSubject(messageId) };
    if (!finish) requireStored(await store(this.d.db));
    else {
      // The key is finished with the messages: from now on a repeat gets this reply.
      await this.d.db.transaction(async (tx) => {
        requireStored(await store(tx));
        await finish(tx, reply);
      });
    }

    const history = [...earlier.slice(-(HISTORY_LIMIT - 1)), { role: 'user' as const, content: req.message }];
    const tools = this.d.tools && (this.d.toolRounds ?? 0) > 0 ? this.d.tools : undefined;
    const system = provider.buildSystemPrompt({ chat: ref, loaded, clientData }) + (tools ? TOOLS_PROMPT : '');
    const messages: ModelMessage[] = [{ role: 'system', content: system }, ...history];
    this.d.generator.start({
      messageId,
      userMessageId,
      startedAt,
      request: { model, messages, offlineAnswer: provider.offlineAnswer({ chat: ref, loaded, clientData, question: req.message }) },
      periodStart: period.start,
      remaining: async () => (await this.d.limits.state(this.d.db, userId, provider, limit)).remaining,
      // The acting user of every tool call is the one who asked: nothing the model writes can name another.
      ...(tools ? { tools: { definitions: tools.definitions(), maxRounds: this.d.toolRounds ?? 0, execute: (call) => tools.execute(userId, call) } } : {}),
    });
    return reply;
  }

  /** Whether the user's answer `messageId` failed (a repeat of its question asks again). */
  private async answerFailed(userId: string, messageId: string): Promise<boolean> {
    const [m] = await this.d.db.query<{ status: string }>('select status from chat_messages where id = $1 and user_id = $2', [messageId, userId]);
    return m?.status === 'failed';
  }

  /**
   * The user's chat, its newest messages with content (oldest first) and the tokens the user's answers of the day
   * starting `dayStart` cost (chat-limits.ts `tokenState`), in one round trip; 404 otherwise.
   */
  private async ownChatWithHistory(userId: string, id: string, dayStart: Date): Promise<{ chat: ChatRow; history: ModelMessage[]; tokensUsed: number }> {
    if (!UUID.test(id)) throw ServiceError.notFound('The chat');
    const [row] = await this.d.db.query<ChatRow & { history: ModelMessage[]; tokens_used: number }>(
      `select ${CHAT_COLUMNS},
              coalesce((select json_agg(json_build_object('role', h.role, 'content', h.content) order by h.seq)
                          from (select role, content, seq from chat_messages
                                 where chat_id = c.id and content <> '' and status in ('complete', 'stopped')
                                 order by seq desc limit ${HISTORY_LIMIT}) h), '[]'::json) as history,
              (select coalesce(sum(total_tokens), 0)::int from chat_token_usage where user_id = $2 and period_start = $3) as tokens_used
         from chats c where id = $1 and user_id = $2 and deleted_at is null`,
      [id, userId, dayStart.toISOString()],
      { prepare: true },
    );
    if (!row) throw ServiceError.notFound('The chat');
    const { history, tokens_used: tokensUsed, ...chat } = row;
    return { chat, history, tokensUsed };
  }

  async getMessage(userId: string, input: unknown): Promise<MessageReply> {
    const req = parseOrThrow(messageRefRequestSchema, input);
    const msg = await this.ownMessage(userId, req.chat_id, req.message_id);
    if (msg.role !== 'assistant') return { data: messageView(msg) };
    // The user message stored with it: the one just before it in the chat.
    const [asked] = await this.d.db.query<{ id: string }>(
      `select id from chat_messages where chat_id = $1 and role = 'user' and seq < (select seq from chat_messages where id = $2) order by seq desc limit 1`,
      [msg.chat_id, msg.id],
    );
    return { data: messageView(msg), user_message_id: asked?.id ?? null };
  }

  /**
   * Stops an answer: the instance generating it aborts the model call and stores the partial answer as
   * stopped. An answer no instance is generating any more (its instance died) is settled here.
   */
  async stop(userId: string, input: unknown): Promise<MessageReply> {
    const req = parseOrThrow(messageRefRequestSchema, input);
    const msg = await this.ownMessage(userId, req.chat_id, req.message_id);
    if (msg.role !== 'assistant') throw ServiceError.validation({ message_id: ['Only an answer of the assistant can be stopped.'] });
    if (msg.status === 'streaming') await this.stopAnswer(msg);
    return { data: messageView(await this.ownMessage(userId, req.chat_id, req.message_id)) };
  }

  /**
   * Stops a streaming answer wherever it is generated (here, or the instance that answers the stop request), or
   * settles it when no instance generates it any more.
   */
  private async stopAnswer(msg: { id: string }): Promise<void> {
    if (!(await this.d.generator.stop(msg.id))) {
      const heard = await this.d.bus.nc
        .request(busSubject(this.d.bus.prefix, STOP_CONTROL_SUBJECT), msg.id, { timeout: 1500 })
        .then(() => true)
        .catch(() => false);
      // Stopped, it stays counted like any stopped answer: an instance too busy to answer within the timeout may
      // well be generating it still, and a stop must never give back a model call.
      if (!heard) {
        await this.d.db.query(`update chat_messages set status = 'stopped', completed_at = $2, error = 'orphaned' where id = $1 and status = 'streaming'`, [
          msg.id,
          this.d.clock().toISOString(),
        ]);
      }
    }
  }

  /**
   * Serves stop requests from other instances for answers generated here, and says which answers it is
   * generating (no reply when not ours).
   */
  listenForStops(): () => void {
    const sub = this.d.bus.nc.subscribe(busSubject(this.d.bus.prefix, STOP_CONTROL_SUBJECT), {
      callback: (err, msg) => {
        if (err) return;
        const id = msg.string();
        if (!this.d.generator.isRunning(id)) return;
        void this.d.generator.stop(id).then(() => msg.respond('stopped'));
      },
    });
    const running = this.d.bus.nc.subscribe(busSubject(this.d.bus.prefix, RUNNING_CONTROL_SUBJECT), {
      callback: (err, msg) => {
        if (!err && this.d.generator.isRunning(msg.string())) msg.respond('running');
      },
    });
    return () => {
      sub.unsubscribe();
      running.unsubscribe();
    };
  }

  /**
   * Settles answers whose instance died while generating them (SIGKILL, a lost machine): an answer still
   * `streaming` after `olderThanMs` that no instance says it is generating is marked failed (`orphaned`),
   * given back to the limit, and its stream gets an `error` event so a reader still waiting is told.
   * The event is stored first: settled without it, a reader would wait for good (the chaos test found one
   * whose publish fell into a NATS node's loss), while an event stored and not settled is sent again, under
   * the same msgID, by the next round. Returns how many were settled. Safe to run on every instance at once
   * (the update is guarded).
   */
  async sweepOrphans(olderThanMs: number, opts: { publishRetryMs?: number } = {}): Promise<number> {
    const now = this.d.clock();
    const stale = await this.d.db.query<{ id: string; created_at: string | Date }>(
      `select id, created_at from chat_messages where status = 'streaming' and role = 'assistant' and created_at < $1 order by created_at limit 100`,
      [new Date(now.getTime() - olderThanMs).toISOString()],
    );
    let settled = 0;
    for (const m of stale) {
      if (this.d.generator.isRunning(m.id)) continue;
      const alive = await this.d.bus.nc
        .request(busSubject(this.d.bus.prefix, RUNNING_CONTROL_SUBJECT), m.id, { timeout: 1500 })
        .then(() => true)
        .catch(() => false);
      if (alive) continue;
      const event: ChatStreamEvent = { type: 'error', data: { message_id: m.id, message: 'The assistant could not answer. Please try again.' } };
      try {
        await retryFor(opts.publishRetryMs ?? 10_000, () =>
          this.d.bus.js.publish(busSubject(this.d.bus.prefix, chatStreamSubject(m.id)), JSON.stringify(event), { msgID: `${m.id}:orphaned` }),
        );
      } catch (err) {
        this.d.logger.warn({ err, messageId: m.id }, 'chat: the end of an orphaned answer could not be published; next round retries');
        continue;
      }
      const period = dayPeriod(new Date(m.created_at), this.d.limits.marketTz);
      const [row] = await this.d.db.query<{ n: number }>(
        `with m as (
           update chat_messages set status = 'failed', completed_at = $2, error = 'orphaned: the instance generating it stopped' where id = $1 and status = 'streaming'
           returning user_id, context_type
         ), u as (
           update chat_usage u set used = u.used - 1 from m
            where u.user_id = m.user_id and u.context_type = m.context_type and u.period_start = $3 and u.used > 0
           returning 1
         )
         select count(*)::int as n from m`,
        [m.id, this.d.clock().toISOString(), period.start.toISOString()],
      );
      if (!row?.n) continue;
      settled++;
      this.d.logger.warn({ messageId: m.id }, 'chat: an answer left streaming by a stopped instance was settled as failed');
    }
    return settled;
  }

  async rate(userId: string, input: unknown): Promise<MessageReply> {
    const req = parseOrThrow(rateMessageRequestSchema, input);
    const msg = await this.ownMessage(userId, req.chat_id, req.message_id);
    if (msg.role !== 'assistant') throw ServiceError.validation({ message_id: ['Only answers of the assistant can be rated.'] });
    const [row] = await this.d.db.query<MessageRow>(`update chat_messages set rating = $2, rating_comment = $3 where id = $1 returning ${MESSAGE_COLUMNS}`, [
      msg.id,
      req.rating,
      req.rating_comment ?? null,
    ]);
    return { data: messageView(row!) };
  }

  async limitsOf(userId: string): Promise<ChatLimitsReply> {
    const data = [];
    for (const provider of this.d.providers.all()) {
      const s = await this.d.limits.state(this.d.db, userId, provider, await this.d.limits.limitFor(userId, provider));
      data.push({ context_type: provider.type, limit: s.limit, used: s.used, remaining: s.remaining, period: 'day' as const, resets_at: s.resetsAt.toISOString() });
    }
    const tokens = await this.d.limits.tokenState(this.d.db, userId, await this.d.limits.tokenBudgetFor(userId));
    return { data, tokens: { limit: tokens.limit, used: tokens.used, remaining: tokens.remaining, period: 'day', resets_at: tokens.resetsAt.toISOString() } };
  }

  private async ownChat(userId: string, id: string): Promise<ChatRow> {
    if (!UUID.test(id)) throw ServiceError.notFound('The chat');
    const [row] = await this.d.db.query<ChatRow>(`select ${CHAT_COLUMNS} from chats where id = $1 and user_id = $2 and deleted_at is null`, [id, userId]);
    if (!row) throw ServiceError.notFound('The chat');
    return row;
  }

  private async ownMessage(userId: string, chatId: string, messageId: string): Promise<MessageRow> {
    await this.ownChat(userId, chatId);
    if (!UUID.test(messageId)) throw ServiceError.notFound('The message');
    const [row] = await this.d.db.query<MessageRow>(`select ${MESSAGE_COLUMNS} from chat_messages where id = $1 and chat_id = $2`, [messageId, chatId]);
    if (!row) throw ServiceError.notFound('The message');
    return row;
  }
}

