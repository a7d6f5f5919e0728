import { randomUUID } from 'node:crypto';
import {
  type ChatLimitsReply,
  type ChatReply,
  type ChatWithMessagesReply,
  chatIdRequestSchema,
  chatStreamSubject,
  createChatRequestSchema,
  type MessageReply,
  messageRefRequestSchema,
  type Page,
  pageMeta,
  pageQuerySchema,
  rateMessageRequestSchema,
  type SendMessageReply,
  sendMessageRequestSchema,
  updateChatRequestSchema,
} from '@invest/contracts';
import { type Bus, busSubject, type Db, lockQuotaOwner, type Logger, parseOrThrow, type RpcClient, ServiceError } from '@invest/platform';
import type { AnswerGenerator } from '../generation/answer-generator.js';
import type { ModelMessage } from '../generation/chat-model.js';
import { ChatLimits, COUNTED_ANSWERS } from '../limits/chat-limits.js';
import type { ChatRef } from '../providers/context-provider.js';
import type { ContextProviders } from '../providers/context-providers.js';
import { titleFromMessage } from './chat-title.js';
import { CHAT_COLUMNS, type ChatRow, chatView, MESSAGE_COLUMNS, type MessageRow, messageView } from './chat.views.js';

/** The model sees the chat's newest messages, at most this many (spec). */
export const HISTORY_LIMIT = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Control subject on which every chat instance hears stop requests for answers it generates. */
export const STOP_CONTROL_SUBJECT = 'chat.control.stop';

export interface ChatServiceDeps {
  db: Db;
  bus: Bus;
  rpc: RpcClient;
  providers: ContextProviders;
  limits: ChatLimits;
  generator: AnswerGenerator;
  clock: () => Date;
  logger: Logger;
}

/** Chats, messages, answers and limits of the signed-in user (every query is scoped by user id). */
export class ChatService {
  constructor(private readonly d: ChatServiceDeps) {}

  async create(userId: string, input: unknown): Promise<ChatReply> {
    const req = parseOrThrow(createChatRequestSchema, input);
    const provider = this.d.providers.require(req.context_type);
    const contextId = await provider.openChat({ userId, contextId: req.context_id }, { rpc: this.d.rpc });
    const now = this.d.clock().toISOString();
    const [row] = await this.d.db.query<ChatRow>(
      `insert into chats (id, user_id, context_type, context_id, title, created_at, updated_at) values ($1, $2, $3, $4, null, $5, $5) returning ${CHAT_COLUMNS}`,
      [randomUUID(), userId, provider.type, contextId, now],
    );
    return { data: chatView(row!) };
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

  async get(userId: string, input: unknown): Promise<ChatWithMessagesReply> {
    const chat = await this.ownChat(userId, parseOrThrow(chatIdRequestSchema, input).id);
    const messages = await this.d.db.query<MessageRow>(`select ${MESSAGE_COLUMNS} from chat_messages where chat_id = $1 order by seq`, [chat.id]);
    return { data: { ...chatView(chat), messages: messages.map(messageView) } };
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
    return { deleted: true };
  }

  /**
   * Stores the user's message and the assistant's (streaming) one, then starts the model call in the
   * background and answers at once; the answer's events follow on `chat.stream.<messageId>`.
   * Over the period's limit: 429 before anything is stored or any model is called.
   */
  async send(userId: string, input: unknown): Promise<SendMessageReply> {
    const req = parseOrThrow(sendMessageRequestSchema, input);
    const chat = await this.ownChat(userId, req.chat_id);
    const provider = this.d.providers.require(chat.context_type);
    const clientData = provider.parseClientData(req.context_data);
    const ref: ChatRef = { id: chat.id, userId, contextType: chat.context_type, contextId: chat.context_id };
    // Independent reads side by side: they are most of the time before the model is called.
    const [limit, loaded, earlier] = await Promise.all([this.d.limits.limitFor(userId, provider), provider.load(ref, { rpc: this.d.rpc }), this.history(chat.id)]);
    const model = this.d.providers.modelFor(provider);
    const userMessageId = randomUUID();
    const messageId = randomUUID();

    const startedAt = await this.d.db.transaction(async (tx) => {
      // Concurrent sends of one user and context queue here, so the count below cannot overshoot.
      await lockQuotaOwner(tx, `chat:${userId}:${provider.type}`);
      const now = this.d.clock();
      const period = this.d.limits.period();
      // The assistant's row is a millisecond later, so the two always sort user-first by time as well.
      const answerAt = new Date(now.getTime() + 1);
      // Count and insert in one statement (its snapshot is taken after the lock): one round trip fewer
      // before the model is called.
      const [row] = await tx.query<{ used: number; inserted: number }>(
        `with used as (
           select count(*)::int as n from chat_messages
            where user_id = $4 and context_type = $5 and created_at >= $11 and ${COUNTED_ANSWERS}
         ), ins as (
           insert into chat_messages (id, chat_id, user_id, context_type, role, content, status, model, created_at, completed_at)
           select v.* from (values ($1::uuid, $3::uuid, $4, $5, 'user', $6, 'complete', null::text, $7::timestamptz, $7::timestamptz),
                                   ($2::uuid, $3::uuid, $4, $5, 'assistant', '', 'streaming', $8, $9::timestamptz, null::timestamptz)) v
            where $12::int is null or (select n from used) < $12::int
           returning 1
         ), upd as (
           update chats set title = coalesce(title, $10), updated_at = $7 where id = $3 and exists (select 1 from ins)
         )
         select (select n from used) as used, (select count(*)::int from ins) as inserted`,
        [userMessageId, messageId, chat.id, userId, provider.type, req.message, now.toISOString(), model, answerAt.toISOString(), titleFromMessage(req.message), period.start.toISOString(), limit],
      );
      if (!row || row.inserted === 0) {
        ChatLimits.requireRemaining({ limit, used: row?.used ?? 0, resetsAt: period.resetsAt }, provider);
        throw new Error('chat: the messages were not stored although the limit allows them');
      }
      return answerAt;
    });

    const history = [...earlier.slice(-(HISTORY_LIMIT - 1)), { role: 'user' as const, content: req.message }];
    const messages: ModelMessage[] = [{ role: 'system', content: provider.buildSystemPrompt({ chat: ref, loaded, clientData }) }, ...history];
    this.d.generator.start({
      messageId,
      userMessageId,
      startedAt,
      request: { model, messages, offlineAnswer: provider.offlineAnswer({ chat: ref, loaded, clientData, question: req.message }) },
      remaining: async () => (await this.d.limits.state(this.d.db, userId, provider, limit)).remaining,
    });
    return { chat_id: chat.id, message_id: messageId, user_message_id: userMessageId, stream_subject: chatStreamSubject(messageId) };
  }

  /** The chat's newest messages with content (oldest first), before the one being sent. */
  private async history(chatId: string): Promise<ModelMessage[]> {
    const rows = await this.d.db.query<{ role: 'user' | 'assistant'; content: string }>(
      `select role, content from chat_messages
        where chat_id = $1 and content <> '' and status in ('complete', 'stopped')
        order by seq desc limit ${HISTORY_LIMIT}`,
      [chatId],
    );
    return rows.reverse().map((r) => ({ role: r.role, content: r.content }));
  }

  async getMessage(userId: string, input: unknown): Promise<MessageReply> {
    const req = parseOrThrow(messageRefRequestSchema, input);
    return { data: messageView(await this.ownMessage(userId, req.chat_id, req.message_id)) };
  }

  /**
   * Stops an answer: the instance generating it aborts the model call and stores the partial answer as
   * stopped. An answer no instance is generating any more (its instance died) is settled here.
   */
  async stop(userId: string, input: unknown): Promise<MessageReply> {
    const req = parseOrThrow(messageRefRequestSchema, input);
    const msg = await this.ownMessage(userId, req.chat_id, req.message_id);
    if (msg.role !== 'assistant') throw ServiceError.validation({ message_id: ['Only an answer of the assistant can be stopped.'] });
    if (msg.status === 'streaming' && !(await this.d.generator.stop(msg.id))) {
      const heard = await this.d.bus.nc
        .request(busSubject(this.d.bus.prefix, STOP_CONTROL_SUBJECT), msg.id, { timeout: 1500 })
        .then(() => true)
        .catch(() => false);
      if (!heard) {
        await this.d.db.query(`update chat_messages set status = 'stopped', completed_at = $2, error = 'orphaned' where id = $1 and status = 'streaming'`, [msg.id, this.d.clock().toISOString()]);
      }
    }
    return { data: messageView(await this.ownMessage(userId, req.chat_id, req.message_id)) };
  }

  /** Serves stop requests from other instances for answers generated here (no reply when not ours). */
  listenForStops(): () => void {
    const sub = this.d.bus.nc.subscribe(busSubject(this.d.bus.prefix, STOP_CONTROL_SUBJECT), {
      callback: (err, msg) => {
        if (err) return;
        const id = msg.string();
        if (!this.d.generator.isRunning(id)) return;
        void this.d.generator.stop(id).then(() => msg.respond('stopped'));
      },
    });
    return () => sub.unsubscribe();
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
    return { data };
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

