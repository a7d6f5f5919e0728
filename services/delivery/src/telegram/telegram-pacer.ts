import { setTimeout as sleepFor } from 'node:timers/promises';

/** Telegram's limit over all chats without paid broadcasts (reference §7): the pacer's default. */
export const FREE_BROADCAST_PER_SECOND = 30;

export interface TelegramPacerOptions {
  /** Least time between two messages to one chat (Telegram: about one a second). */
  perChatMs?: number;
  /** Most messages a second over all chats (Telegram: about 30). */
  perSecond?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Spaces the bot's messages the way Telegram asks (reference §7): one a second per chat, about 30 a second
 * overall, and none to a chat Telegram throttled until its `retry_after` is over. Slots are reserved in
 * the order callers ask, so concurrent senders never share one. Per process: several delivery instances each
 * keep their own pace, and Telegram's 429 (obeyed) is the backstop.
 */
export class TelegramPacer {
  private readonly perChatMs: number;
  private readonly globalGapMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** When each chat may get its next message. */
  private readonly nextForChat = new Map<number, number>();
  /** When any chat may get the next message. */
  private nextAny = 0;
  /** Chats Telegram answered 429 for, until when. */
  private readonly heldUntil = new Map<number, number>();

  constructor(opts: TelegramPacerOptions = {}) {
    this.perChatMs = opts.perChatMs ?? 1000;
    // Rounded up: 30 slots never fit in one second.
    this.globalGapMs = Math.ceil(1000 / (opts.perSecond ?? FREE_BROADCAST_PER_SECOND));
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => sleepFor(ms));
  }

  /** How long this chat is still held by a 429 (0: not held). */
  heldFor(chatId: number): number {
    const until = this.heldUntil.get(chatId);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return left;
    this.heldUntil.delete(chatId);
    return 0;
  }

  /** Telegram said to wait `ms` before writing to this chat again. */
  hold(chatId: number, ms: number): void {
    this.heldUntil.set(chatId, Math.max(this.heldUntil.get(chatId) ?? 0, this.now() + ms));
  }

  /** Waits for this chat's next slot (at most a second for the chat, plus the overall spacing). */
  async turn(chatId: number): Promise<void> {
    const now = this.now();
    const at = Math.max(now, this.nextForChat.get(chatId) ?? 0, this.nextAny);
    this.nextForChat.set(chatId, at + this.perChatMs);
    this.nextAny = at + this.globalGapMs;
    this.forgetIdleChats(now);
    if (at > now) await this.sleep(at - now);
  }

  /** Chats whose slot has passed need no entry: the map stays as large as the last second's chats. */
  private forgetIdleChats(now: number): void {
    if (this.nextForChat.size < 1000) return;
    for (const [chat, next] of this.nextForChat) if (next <= now) this.nextForChat.delete(chat);
  }
}
