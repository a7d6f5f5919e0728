import type { Logger, SqlClient } from '@invest/platform';
import type { ChannelSender, OutgoingMessage, SendResult } from '../channels/channel.js';
import type { TelegramClient } from './telegram.client.js';
import { telegramMessage } from './telegram-message.js';
import { chatIsGone, sendResultOf } from './telegram-send-result.js';
import type { TelegramPacer } from './telegram-pacer.js';
import { TelegramRepository } from './telegram.repository.js';

/**
 * The Telegram channel: one linked chat per user, messages in HTML with a button to the notification's page,
 * paced per chat and overall. A muted chat is no address while the mute lasts: what is due meanwhile reaches
 * the inbox and the other channels, not Telegram (the dispatcher asks `addresses` again before each send, so a
 * message queued before the mute is skipped too); nothing piles up to arrive all at once when it ends.
 */
export class TelegramSender implements ChannelSender {
  readonly channel = 'telegram' as const;
  constructor(
    private readonly deps: {
      client: TelegramClient;
      pacer: TelegramPacer;
      clock: () => Date;
      logger: Logger;
      /** Paced above Telegram's free ~30 a second: each message asks for a paid broadcast, or Telegram throttles it. */
      paidBroadcast?: boolean;
    },
  ) {}

  async addresses(db: SqlClient, userIds: readonly string[]): Promise<Map<string, string[]>> {
    const chats = await new TelegramRepository(db).deliverableChats(userIds, this.deps.clock());
    return new Map([...chats].map(([userId, chat]) => [userId, [chat]]));
  }

  async send(address: string, message: OutgoingMessage): Promise<SendResult> {
    const chatId = Number(address);
    if (!Number.isSafeInteger(chatId)) return { outcome: 'permanent', reason: `telegram: not a chat id: ${address}` };
    const held = this.deps.pacer.heldFor(chatId);
    if (held > 0) return { outcome: 'retry', reason: 'telegram: throttled for this chat (429 retry_after)', afterMs: held };
    await this.deps.pacer.turn(chatId);
    try {
      const sent = await this.deps.client.sendMessage({ ...telegramMessage(chatId, message), ...(this.deps.paidBroadcast ? { allow_paid_broadcast: true } : {}) });
      return { outcome: 'sent', providerId: String(sent.message_id) };
    } catch (err) {
      const result = sendResultOf(err);
      // The dispatcher logs the outcome; a 429 also holds the chat here, for the other messages queued for it.
      if (result.outcome === 'retry' && result.afterMs !== undefined) this.deps.pacer.hold(chatId, result.afterMs);
      return result;
    }
  }

  /** A chat that is gone (blocked bot, deleted account) is unlinked and marked blocked for the settings screen. */
  async onPermanentFailure(db: SqlClient, userId: string, address: string, reason: string): Promise<void> {
    if (!chatIsGone(reason)) return;
    await new TelegramRepository(db).markBlocked(userId, address, this.deps.clock());
    this.deps.logger.info({ userId }, 'telegram: the chat is gone (bot blocked or account deleted); unlinked');
  }
}
