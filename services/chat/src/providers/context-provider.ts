import type { RpcClient } from '@invest/platform';

/** The chat a prompt is built for. */
export interface ChatRef {
  id: string;
  userId: string;
  contextType: string;
  contextId: string | null;
}

/** What a provider may use while loading its context (the user's own view of other services). */
export interface ProviderDeps {
  rpc: RpcClient;
}

/**
 * One chat context type: how a chat of it is opened, how its system prompt is built, which model answers,
 * and its free limit. Adding a context type is one file implementing this plus a line in context-providers.ts.
 *
 * `load` does the I/O (other services); `buildSystemPrompt` and `offlineAnswer` are pure functions of what
 * `load` returned and the client's validated `context_data`, so prompts are unit-tested without a bus.
 */
export interface ContextProvider<Loaded = unknown, ClientData = unknown> {
  readonly type: string;
  /** Default model; configuration may override it (CHAT_MODEL_<TYPE>, CHAT_MODEL). */
  readonly model: string;
  /** Answers per period on the free plan (billing's entitlements decide for a user; this is the fallback). */
  readonly freeLimit: number;
  readonly limitPeriod: 'day';
  /** Checks `context_id` when a chat is created (422 when it is missing or not the user's); returns the id to store. */
  openChat(input: { userId: string; contextId: string | null | undefined }, deps: ProviderDeps): Promise<string | null>;
  /** Validates the client's `context_data` (422 naming `context_data.<field>`). */
  parseClientData(contextData: Record<string, unknown>): ClientData;
  /** Reads what the prompt needs from other services, for every message. */
  load(chat: ChatRef, deps: ProviderDeps): Promise<Loaded>;
  buildSystemPrompt(input: { chat: ChatRef; loaded: Loaded; clientData: ClientData }): string;
  /** The answer of the built-in offline responder (no model key configured), from the same context. */
  offlineAnswer(input: { chat: ChatRef; loaded: Loaded; clientData: ClientData; question: string }): string;
}

/** Shown when a model is not configured, so nobody takes the offline text for a model's answer. */
export const OFFLINE_NOTICE = 'The AI assistant is offline (no model is configured), so this is an automatic summary, not an AI answer.';
export const OFFLINE_NOTICE_RU = 'ИИ-ассистент не подключён (модель не настроена), поэтому это автоматическая сводка, а не ответ ИИ.';
export const offlineNotice = (lang: 'ru' | 'en') => (lang === 'ru' ? OFFLINE_NOTICE_RU : OFFLINE_NOTICE);
