import { z } from 'zod';
import { requiredString } from '../common/text.js';

/*
 * The AI chat (`services/chat`): chats per user and context, messages, streamed answers, free limits.
 * HTTP shapes: docs in services/chat/README.md; docs/architecture.md, "HTTP contract".
 */

/** A chat or message id (UUID). Anything else is "not found", never a 500. */
export const chatIdSchema = z.string().uuid();

/** A context type name as clients send it; the chat service's provider registry decides which exist (422 otherwise). */
export const contextTypeSchema = requiredString('context type')
  .min(1, 'The context type field is required.')
  .max(64, 'The context type may not be greater than 64 characters.');

export const createChatRequestSchema = z.object({
  context_type: contextTypeSchema,
  context_id: z
    .union([z.string().max(64, 'The context id may not be greater than 64 characters.'), z.number().int()], { error: 'The context id must be an identifier.' })
    .transform((v) => String(v))
    .nullish(),
});
export type CreateChatRequest = z.infer<typeof createChatRequestSchema>;

export const CHAT_MESSAGE_ROLES = ['user', 'assistant'] as const;
/** complete: answered; streaming: the model is still writing it; stopped: the user stopped it (partial); failed: the model call failed. */
export const CHAT_MESSAGE_STATUSES = ['complete', 'streaming', 'stopped', 'failed'] as const;
export const CHAT_RATINGS = ['like', 'dislike'] as const;

export const chatUsageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  /** True when the model server sent no usage and the counts were estimated from the text. */
  estimated: z.boolean(),
});
export type ChatUsage = z.infer<typeof chatUsageSchema>;

/**
 * One source of an answer: a tool call whose result the model read (tool name, its arguments, a short label the UI
 * lists under the answer). Every figure an answer gives comes from one of them.
 */
export const chatSourceSchema = z.object({
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  label: z.string(),
});
export type ChatSource = z.infer<typeof chatSourceSchema>;

export const chatMessageSchema = z.object({
  id: z.string(),
  ai_chat_id: z.string(),
  role: z.enum(CHAT_MESSAGE_ROLES),
  content: z.string(),
  status: z.enum(CHAT_MESSAGE_STATUSES),
  rating: z.enum(CHAT_RATINGS).nullable(),
  rating_comment: z.string().nullable(),
  model: z.string().nullable(),
  usage: chatUsageSchema.nullable(),
  latency_ms: z.number().int().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
  /** The tool calls the answer read (empty for user messages and answers that called none). */
  sources: z.array(chatSourceSchema).optional(),
});
export type ChatMessageView = z.infer<typeof chatMessageSchema>;

export const chatSchema = z.object({
  id: z.string(),
  user_id: z.string(),
  context_type: z.string(),
  context_id: z.string().nullable(),
  title: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ChatView = z.infer<typeof chatSchema>;
export const chatReplySchema = z.object({ data: chatSchema });
export type ChatReply = z.infer<typeof chatReplySchema>;
export const chatWithMessagesReplySchema = z.object({ data: chatSchema.extend({ messages: z.array(chatMessageSchema) }) });
export type ChatWithMessagesReply = z.infer<typeof chatWithMessagesReplySchema>;

export const chatIdRequestSchema = z.object({ id: z.string() });

/**
 * `chat.chats.get`: the chat and its messages after `after_seq` (from the first without it), as many as fit one
 * NATS message; the gateway asks page by page while `next_after_seq` names where the next starts (a long chat's
 * messages reach megabytes, beyond NATS's 1 MB `max_payload`).
 */
export const getChatRequestSchema = chatIdRequestSchema.extend({ after_seq: z.number().int().nonnegative().optional() });
export type ChatWithMessagesPageReply = ChatWithMessagesReply & { next_after_seq: number | null };
export const updateChatBodySchema = z.object({
  title: requiredString('title')
    .trim()
    .min(1, 'The title field is required.')
    .max(255, 'The title may not be greater than 255 characters.'),
});
export const updateChatRequestSchema = updateChatBodySchema.extend({ id: z.string() });

/** Client metrics of `context_data`: bounded so a client cannot blow up the prompt. */
export const CONTEXT_DATA_MAX_BYTES = 16_384;
export const contextDataSchema = z
  .record(z.string(), z.unknown(), { error: 'The context data must be an object.' })
  .refine((v) => JSON.stringify(v).length <= CONTEXT_DATA_MAX_BYTES, `The context data may not be greater than ${CONTEXT_DATA_MAX_BYTES} bytes.`);

export const sendMessageBodySchema = z.object({
  message: requiredString('message')
    .trim()
    .min(1, 'The message field is required.')
    .max(4000, 'The message may not be greater than 4000 characters.'),
  context_data: contextDataSchema.nullish().transform((v) => v ?? {}),
});
export const sendMessageRequestSchema = sendMessageBodySchema.extend({
  chat_id: z.string(),
  /** The answer's id, chosen by the gateway so it can subscribe to the answer's events before it exists. */
  message_id: z.string().uuid().optional(),
});
export type SendMessageRequest = z.infer<typeof sendMessageRequestSchema>;

/** What `chat.messages.send` answers once both messages are stored and the answer is generating. */
export const sendMessageReplySchema = z.object({
  chat_id: z.string(),
  message_id: z.string(),
  user_message_id: z.string(),
  /** The bus subject the answer's events are on (without the bus prefix). */
  stream_subject: z.string(),
});
export type SendMessageReply = z.infer<typeof sendMessageReplySchema>;

export const messageRefRequestSchema = z.object({ chat_id: z.string(), message_id: z.string() });
export type MessageRefRequest = z.infer<typeof messageRefRequestSchema>;
export const messageReplySchema = z.object({
  data: chatMessageSchema,
  /** `chat.messages.get` of an answer: the user message it answers (what a replayed `start` event names). */
  user_message_id: z.string().nullable().optional(),
});
export type MessageReply = z.infer<typeof messageReplySchema>;

export const rateMessageBodySchema = z.object({
  rating: z.enum(CHAT_RATINGS, { error: 'The rating must be like or dislike.' }),
  rating_comment: z.string().trim().max(1000, 'The rating comment may not be greater than 1000 characters.').nullish(),
});
export const rateMessageRequestSchema = rateMessageBodySchema.extend({ chat_id: z.string(), message_id: z.string() });

export const chatLimitSchema = z.object({
  context_type: z.string(),
  /** Answers allowed per period; null when unlimited. */
  limit: z.number().int().nullable(),
  used: z.number().int(),
  remaining: z.number().int().nullable(),
  period: z.literal('day'),
  resets_at: z.string(),
});
export type ChatLimit = z.infer<typeof chatLimitSchema>;
/** The user's daily token budget, all contexts together: tokens the model reported (or estimated) for the day's answers. */
export const chatTokenBudgetSchema = z.object({
  /** Tokens allowed per period; null when unlimited. */
  limit: z.number().int().nullable(),
  used: z.number().int(),
  remaining: z.number().int().nullable(),
  period: z.literal('day'),
  resets_at: z.string(),
});
export type ChatTokenBudget = z.infer<typeof chatTokenBudgetSchema>;
export const chatLimitsReplySchema = z.object({ data: z.array(chatLimitSchema), tokens: chatTokenBudgetSchema });
export type ChatLimitsReply = z.infer<typeof chatLimitsReplySchema>;

/**
 * One event of a streamed answer, as the chat service publishes it on `chat.stream.<messageId>` and the
 * gateway writes it as SSE (`event: <type>`, `data: <data>`, `id: <stream sequence>`).
 */
export const chatStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('start'), data: z.object({ message_id: z.string(), user_message_id: z.string() }) }),
  z.object({ type: z.literal('chunk'), data: z.object({ content: z.string() }) }),
  z.object({
    type: z.literal('done'),
    data: z.object({
      message_id: z.string(),
      status: z.enum(['complete', 'stopped']),
      usage: chatUsageSchema,
      remaining: z.number().int().nullable(),
      /** The answer's sources (tool calls it read); optional so a reader older than them still reads `done`. */
      sources: z.array(chatSourceSchema).optional(),
    }),
  }),
  z.object({ type: z.literal('error'), data: z.object({ message_id: z.string(), message: z.string() }) }),
]);
export type ChatStreamEvent = z.infer<typeof chatStreamEventSchema>;

/** JetStream stream holding streamed answers for replay (short max age). */
export const CHAT_STREAMS = { stream: 'CHAT_STREAMS', root: 'chat.stream' } as const;

/** Subject of one answer's events (without the bus prefix). */
export function chatStreamSubject(messageId: string): string {
  return `${CHAT_STREAMS.root}.${messageId}`;
}
