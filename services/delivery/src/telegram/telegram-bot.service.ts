import { randomBytes } from 'node:crypto';
import { type DeliveryLanguage, ErrorCode, type TelegramLinkReply } from '@invest/contracts';
import type { Db } from '@invest/platform/db/database';
import type { Logger } from '@invest/platform/logging/logger';
import { ServiceError } from '@invest/platform/rpc/service-error';
import { startOfDayInZone } from '@invest/platform/time/zoned-time';
import { TelegramApiError, type TelegramClient } from './telegram.client.js';
import type { TelegramPacer } from './telegram-pacer.js';
import { type LinkedChat, TelegramRepository } from './telegram.repository.js';
import { BOT_TEXTS, replyTime } from './telegram-texts.js';
import { botCommand, type TelegramUpdate, telegramUpdateSchema } from './telegram-update.js';
import { hashSecretToken } from '../channels/secret-token.js';

/** How long a link from the settings screen may be used (issue 32). */
export const LINK_TOKEN_TTL_MS = 15 * 60_000;
/** Where Telegram posts updates, under PUBLIC_BASE_URL (the gateway's route). */
export const WEBHOOK_PATH = '/api/provider/telegram';
/** The updates the bot reads (setWebhook's allowed_updates). */
const ALLOWED_UPDATES = ['message', 'my_chat_member', 'callback_query'];
/** Until the webhook is set (Telegram unreachable at start), it is tried again this often. */
const WEBHOOK_RETRY_MS = 30_000;
/** Handled update ids and link tokens are kept this long (Telegram redelivers an update for at most 24 h)… */
const KEEP_MS = 48 * 60 * 60_000;
/** …and what is older is deleted this often. */
const PRUNE_EVERY_MS = 60 * 60_000;

export interface TelegramBotDeps {
  db: Db;
  client: TelegramClient;
  pacer: TelegramPacer;
  clock: () => Date;
  logger: Logger;
  /** The gateway's public base URL: Telegram posts updates to its WEBHOOK_PATH. */
  publicBaseUrl: string;
  webhookSecret: string;
}

/** A 503 whose message the user sees (`public`): nothing was done, and why. */
export const telegramUnavailable = (message: string): ServiceError => new ServiceError(ErrorCode.Unavailable, message, undefined, { outcome: 'not_done', public: true });


interface Reply {
  chatId: number;
  text: string;
}

/**
 * The bot's side of the Telegram channel: single-use deep links that link a chat to a user, the webhook set
 * at start, and the commands a user sends (/start <token>, /stop, /mute 1h, /mute today, /unmute, /status),
 * answered in the user's language. Each update is handled once (`telegram_updates`); replies go out after
 * the update is recorded, so the webhook is answered without waiting for them.
 */
export class TelegramBot {
  private readonly replies = new Set<Promise<void>>();
  private retry: NodeJS.Timeout | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly deps: TelegramBotDeps) {}

  /** Asks who the bot is and sets the webhook; when Telegram cannot be reached, keeps trying in the background. */
  async start(): Promise<void> {
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
    await this.prune();
    if (await this.setUp()) return;
    const again = () => {
      this.retry = setTimeout(() => void this.setUp().then((ok) => ok || this.closed || again()), WEBHOOK_RETRY_MS);
      this.retry.unref();
    };
    again();
  }

  private async setUp(): Promise<boolean> {
    const url = `${this.deps.publicBaseUrl}${WEBHOOK_PATH}`;
    try {
      const me = await this.deps.client.getMe();
      await this.deps.client.setWebhook({ url, secret_token: this.deps.webhookSecret, allowed_updates: ALLOWED_UPDATES });
      this.deps.logger.debug({ bot: me.username, webhook: url }, 'telegram: webhook set');
      return true;
    } catch (err) {
      const reason = err instanceof TelegramApiError ? err.message : String(err);
      // A 4xx is our configuration (a bad token, an http:// URL Telegram refuses): trying again changes nothing.
      const permanent = err instanceof TelegramApiError && err.status !== undefined && err.status < 500 && err.status !== 429;
      this.deps.logger.error({ webhook: url, reason }, permanent ? 'telegram: webhook not set; fix the configuration' : 'telegram: webhook not set; trying again');
      return permanent;
    }
  }

  /** Deletes update ids and link tokens past KEEP_MS: no update comes again that late, no link works. */
  private async prune(): Promise<void> {
    try {
      await new TelegramRepository(this.deps.db).prune(new Date(this.deps.clock().getTime() - KEEP_MS));
    } catch (err) {
      this.deps.logger.warn({ err }, 'telegram: old update ids and link tokens not deleted; tried again later');
    }
  }

  /** Stops trying to set the webhook and waits for the replies under way. */
  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearInterval(this.pruner);
    await Promise.allSettled([...this.replies]);
  }

  /** A single-use link `https://t.me/<bot>?start=<token>` for this user, valid LINK_TOKEN_TTL_MS. */
  async link(userId: string): Promise<TelegramLinkReply> {
    let username: string;
    try {
      username = (await this.deps.client.getMe()).username;
    } catch (err) {
      this.deps.logger.warn({ reason: (err as Error).message }, 'telegram: getMe failed; no link made');
      throw telegramUnavailable('Telegram is not reachable right now. Try again in a minute.');
    }
    const now = this.deps.clock();
    // 32 characters of base64url: what a /start payload may hold (A-Z a-z 0-9 _ -, up to 64).
    const token = randomBytes(24).toString('base64url');
    const expiresAt = new Date(now.getTime() + LINK_TOKEN_TTL_MS);
    await new TelegramRepository(this.deps.db).saveLinkToken(hashSecretToken(token), userId, expiresAt);
    return { data: { url: `https://t.me/${username}?start=${token}`, expires_at: expiresAt.toISOString() } };
  }

  /** One update from the webhook. One that is not an Update is acknowledged and logged: Telegram would resend it for a day. */
  async handle(input: unknown): Promise<{ ok: true }> {
    const parsed = telegramUpdateSchema.safeParse(input);
    if (!parsed.success) {
      this.deps.logger.warn({ issues: parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`) }, 'telegram: update not understood; ignored');
      return { ok: true };
    }
    const update = parsed.data;
    const now = this.deps.clock();
    const handled = await this.deps.db.transaction(async (tx) => {
      const repo = new TelegramRepository(tx);
      if (!(await repo.recordUpdate(update.update_id, now))) return null;
      return { reply: await this.apply(repo, update, now) };
    });
    // A repeat (null) was answered the first time.
    if (handled && update.callback_query) this.inBackground(this.answerCallback(update.callback_query.id));
    if (handled?.reply) this.inBackground(this.sendReply(handled.reply));
    return { ok: true };
  }

  private async apply(repo: TelegramRepository, update: TelegramUpdate, now: Date): Promise<Reply | null> {
    const member = update.my_chat_member;
    if (member && member.chat.type === 'private' && member.new_chat_member.status === 'kicked') {
      const userId = await repo.blockChat(member.chat.id, now);
      if (userId) this.deps.logger.debug({ userId }, 'telegram: the user blocked the bot; chat unlinked');
      return null;
    }
    const message = update.message;
    if (!message || message.text === undefined) return null;
    const command = botCommand(message.text);
    const chatId = message.chat.id;
    const say = (lang: DeliveryLanguage, text: (t: (typeof BOT_TEXTS)[DeliveryLanguage]) => string): Reply => ({ chatId, text: text(BOT_TEXTS[lang]) });
    const langOf = async (userId: string | null) => (userId ? (await repo.profile(userId)).language : guessLanguage(message.from?.language_code));
    if (message.chat.type !== 'private') return command?.name === 'start' ? say(guessLanguage(message.from?.language_code), (t) => t.privateOnly) : null;

    const owner = await repo.chatOwner(chatId);
    switch (command?.name) {
      case 'start': {
        if (!command.arg) return say(await langOf(owner?.userId ?? null), (t) => (owner ? t.help : t.startWithoutLink));
        const use = await repo.useLinkToken(hashSecretToken(command.arg), now);
        if (use.status === 'unknown') return say(await langOf(owner?.userId ?? null), (t) => t.linkUnknown);
        if (use.status !== 'linked') return say(await langOf(use.userId), (t) => (use.status === 'used' ? t.linkUsed : t.linkExpired));
        await repo.linkChat(use.userId, chatId, message.chat.username ?? message.from?.username ?? null, now);
        this.deps.logger.debug({ userId: use.userId }, 'telegram: chat linked');
        return say(await langOf(use.userId), (t) => t.linked);
      }
      case 'stop': {
        const userId = await repo.unlinkChat(chatId, now);
        if (userId) this.deps.logger.debug({ userId }, 'telegram: chat unlinked (/stop)');
        return say(await langOf(userId), (t) => (userId ? t.stopped : t.notLinked));
      }
      case 'mute':
      case 'unmute':
      case 'status':
        return owner ? this.ownerCommand(repo, owner, chatId, command, now) : say(await langOf(null), (t) => t.notLinked);
      default:
        return say(await langOf(owner?.userId ?? null), (t) => (owner ? t.help : t.startWithoutLink));
    }
  }

  /** /mute, /unmute and /status of a linked chat. */
  private async ownerCommand(repo: TelegramRepository, owner: LinkedChat, chatId: number, command: { name: string; arg: string | null }, now: Date): Promise<Reply> {
    const profile = await repo.profile(owner.userId);
    const t = BOT_TEXTS[profile.language];
    const when = (at: Date) => replyTime(at, profile.language, profile.timeZone);
    if (command.name === 'status') {
      const muted = owner.mutedUntil && owner.mutedUntil.getTime() > now.getTime() ? owner.mutedUntil : null;
      return { chatId, text: t.status(profile, muted && when(muted)) };
    }
    if (command.name === 'unmute') {
      await repo.mute(chatId, null, now);
      return { chatId, text: t.unmuted };
    }
    const until = muteUntil(command.arg, now, profile.timeZone);
    if (!until) return { chatId, text: t.muteUsage };
    await repo.mute(chatId, until, now);
    return { chatId, text: t.mutedUntil(when(until)) };
  }

  private inBackground(work: Promise<void>): void {
    const tracked = work.finally(() => this.replies.delete(tracked));
    this.replies.add(tracked);
  }

  /** A reply is best effort: the command took effect whether or not the user sees the answer. */
  private async sendReply(reply: Reply): Promise<void> {
    const { pacer, client, logger } = this.deps;
    if (pacer.heldFor(reply.chatId) > 0) {
      logger.warn('telegram: reply dropped, the chat is throttled (429)');
      return;
    }
    await pacer.turn(reply.chatId);
    try {
      await client.sendMessage({ chat_id: reply.chatId, text: reply.text });
    } catch (err) {
      if (err instanceof TelegramApiError && err.status === 429 && err.retryAfterS) pacer.hold(reply.chatId, err.retryAfterS * 1000);
      logger.warn({ reason: (err as Error).message }, 'telegram: reply not sent');
    }
  }

  /** Stops the button's progress indicator (reference §6); the bot's messages have no callback buttons. */
  private async answerCallback(id: string): Promise<void> {
    try {
      await this.deps.client.answerCallbackQuery({ callback_query_id: id });
    } catch (err) {
      this.deps.logger.warn({ reason: (err as Error).message }, 'telegram: answerCallbackQuery failed');
    }
  }
}

/** The language of someone not linked yet: Telegram's guess of theirs when it is English, else Russian. */
function guessLanguage(code: string | undefined): DeliveryLanguage {
  return code?.toLowerCase().startsWith('en') ? 'en' : 'ru';
}

/** The end of a mute: `1h` from now, or `today`: the start of tomorrow in the user's time zone. Null: not understood. */
export function muteUntil(arg: string | null, now: Date, timeZone: string): Date | null {
  const a = arg?.toLowerCase();
  if (a === '1h') return new Date(now.getTime() + 60 * 60_000);
  if (a !== 'today') return null;
  const today = startOfDayInZone(now, timeZone);
  // 36 h after today's midnight is always inside tomorrow (days last 23-25 h); its midnight ends today.
  return startOfDayInZone(new Date(today.getTime() + 36 * 60 * 60_000), timeZone);
}
