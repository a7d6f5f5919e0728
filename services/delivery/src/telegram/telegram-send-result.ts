import type { SendResult } from '../channels/channel.js';
import { TelegramApiError } from './telegram.client.js';

/**
 * What Telegram answers when this chat can never get the bot's messages again (reference §2): the user blocked
 * the bot or deleted the account, the chat is gone, the bot was removed. The chat is unlinked and marked
 * blocked; a new /start links it again.
 */
const CHAT_GONE = /bot was blocked by the user|user is deactivated|chat not found|bot was kicked/i;

/** Whether a permanent failure's reason says the chat is gone (see CHAT_GONE). */
export const chatIsGone = (reason: string): boolean => CHAT_GONE.test(reason);

/** How a failed sendMessage ends for the outbox. */
export function sendResultOf(err: unknown): Exclude<SendResult, { outcome: 'sent' }> {
  if (!(err instanceof TelegramApiError)) return { outcome: 'retry', reason: `telegram: ${String((err as Error)?.message ?? err)}` };
  const reason = err.message;
  if (err.kind !== 'api' || err.status === undefined) return { outcome: 'retry', reason };
  if (err.status === 429) return { outcome: 'retry', reason, ...(err.retryAfterS !== undefined ? { afterMs: err.retryAfterS * 1000 } : {}) };
  if (err.status >= 500) return { outcome: 'retry', reason };
  // 401 (token revoked) or 404 (wrong API URL): our configuration, not the user's chat. Messages wait for it to be fixed.
  if (err.status === 401 || err.status === 404) return { outcome: 'retry', reason };
  // 403 blocked/deactivated/kicked, 400 chat not found, or a message Telegram will never take (too long, bad markup).
  return { outcome: 'permanent', reason };
}
