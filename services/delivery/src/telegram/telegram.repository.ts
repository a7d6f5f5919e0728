import type { DeliveryLanguage } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';

/** A linked chat as its commands see it. */
export interface LinkedChat {
  userId: string;
  mutedUntil: Date | null;
}

/** What /status and the replies need of the user's settings (the defaults when none were saved). */
export interface UserProfile {
  language: DeliveryLanguage;
  timeZone: string;
  channels: { in_app: boolean; telegram: boolean; push: boolean; email: boolean };
  quietHours: { start: string; end: string } | null;
  pushDevices: number;
  email: { address: string; confirmed: boolean } | null;
}

/** A timestamptz column as a Date (this driver reads some as text). */
const dateOf = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

export type LinkTokenUse = { status: 'linked'; userId: string } | { status: 'used' | 'expired'; userId: string } | { status: 'unknown' };

/** SQL of the Telegram tables: link tokens, linked chats, handled update ids. */
export class TelegramRepository {
  constructor(private readonly db: SqlClient) {}

  /** The chat each user's messages go to now: linked, and not muted at `now` (users without one left out). */
  async deliverableChats(userIds: readonly string[], now: Date): Promise<Map<string, string>> {
    const rows = await this.db.query<{ user_id: string; chat_id: string }>(
      'select user_id, chat_id::text from telegram_chats where user_id = any($1::text[]) and chat_id is not null and (muted_until is null or muted_until <= $2)',
      [userIds, now],
    );
    return new Map(rows.map((r) => [r.user_id, r.chat_id]));
  }

  /** Unlinks the chat and marks it blocked (the settings screen says so), if it is still this user's. */
  async markBlocked(userId: string, chatId: string, now: Date): Promise<void> {
    await this.db.query('update telegram_chats set chat_id = null, blocked = true, muted_until = null, updated_at = $3 where user_id = $1 and chat_id = $2', [
      userId,
      chatId,
      now,
    ]);
  }

  /** Records an update id; false when it was handled before (Telegram delivers an update again until it gets a 2xx). */
  async recordUpdate(updateId: number, now: Date): Promise<boolean> {
    const rows = await this.db.query('insert into telegram_updates (update_id, received_at) values ($1, $2) on conflict do nothing returning update_id', [updateId, now]);
    return rows.length > 0;
  }

  async saveLinkToken(tokenHash: string, userId: string, expiresAt: Date): Promise<void> {
    await this.db.query('insert into telegram_link_tokens (token_hash, user_id, expires_at) values ($1, $2, $3)', [tokenHash, userId, expiresAt]);
  }

  /** Deletes update ids received before `before` and link tokens that ended before it. */
  async prune(before: Date): Promise<void> {
    await this.db.query('delete from telegram_updates where received_at < $1', [before]);
    await this.db.query('delete from telegram_link_tokens where expires_at < $1', [before]);
  }

  /** Uses a link token once (in the caller's transaction): linked, or why not. */
  async useLinkToken(tokenHash: string, now: Date): Promise<LinkTokenUse> {
    const rows = await this.db.query<{ user_id: string; expires_at: Date | string; used_at: Date | string | null }>(
      'select user_id, expires_at, used_at from telegram_link_tokens where token_hash = $1 for update',
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return { status: 'unknown' };
    if (row.used_at) return { status: 'used', userId: row.user_id };
    if (dateOf(row.expires_at)!.getTime() <= now.getTime()) return { status: 'expired', userId: row.user_id };
    await this.db.query('update telegram_link_tokens set used_at = $2 where token_hash = $1', [tokenHash, now]);
    return { status: 'linked', userId: row.user_id };
  }

  /** Links the chat to the user: the user's earlier chat is replaced, and a chat linked to another user moves here. */
  async linkChat(userId: string, chatId: number, username: string | null, now: Date): Promise<void> {
    await this.db.query('update telegram_chats set chat_id = null, muted_until = null, updated_at = $3 where chat_id = $1 and user_id <> $2', [chatId, userId, now]);
    await this.db.query(
      `insert into telegram_chats (user_id, chat_id, username, linked_at, blocked, muted_until, updated_at)
       values ($1, $2, $3, $4, false, null, $4)
       on conflict (user_id) do update set chat_id = excluded.chat_id, username = excluded.username, linked_at = excluded.linked_at,
         blocked = false, muted_until = null, updated_at = excluded.updated_at`,
      [userId, chatId, username, now],
    );
  }

  /** The user this chat is linked to, or null. */
  async chatOwner(chatId: number): Promise<LinkedChat | null> {
    const rows = await this.db.query<{ user_id: string; muted_until: Date | string | null }>('select user_id, muted_until from telegram_chats where chat_id = $1', [chatId]);
    return rows[0] ? { userId: rows[0].user_id, mutedUntil: dateOf(rows[0].muted_until) } : null;
  }

  /** Unlinks the chat (/stop); the user it was linked to, or null. */
  async unlinkChat(chatId: number, now: Date): Promise<string | null> {
    const rows = await this.db.query<{ user_id: string }>(
      'update telegram_chats set chat_id = null, muted_until = null, updated_at = $2 where chat_id = $1 returning user_id',
      [chatId, now],
    );
    return rows[0]?.user_id ?? null;
  }

  /** The bot was blocked in this chat (a `my_chat_member` update): unlinked and marked blocked. */
  async blockChat(chatId: number, now: Date): Promise<string | null> {
    const rows = await this.db.query<{ user_id: string }>(
      'update telegram_chats set chat_id = null, blocked = true, muted_until = null, updated_at = $2 where chat_id = $1 returning user_id',
      [chatId, now],
    );
    return rows[0]?.user_id ?? null;
  }

  /** Mutes the chat until `until` (null: unmutes). */
  async mute(chatId: number, until: Date | null, now: Date): Promise<void> {
    await this.db.query('update telegram_chats set muted_until = $2, updated_at = $3 where chat_id = $1', [chatId, until, now]);
  }

  async profile(userId: string): Promise<UserProfile> {
    const [settings] = await this.db.query<{
      language: DeliveryLanguage;
      time_zone: string;
      in_app: boolean;
      telegram: boolean;
      push: boolean;
      email: boolean;
      quiet_start: string | null;
      quiet_end: string | null;
    }>('select language, time_zone, in_app, telegram, push, email, quiet_start, quiet_end from settings where user_id = $1', [userId]);
    const [push] = await this.db.query<{ n: number }>('select count(*)::int as n from push_subscriptions where user_id = $1', [userId]);
    const [email] = await this.db.query<{ address: string; confirmed: boolean }>(
      'select address, confirmed_at is not null as confirmed from email_addresses where user_id = $1',
      [userId],
    );
    return {
      language: settings?.language ?? 'ru',
      timeZone: settings?.time_zone ?? 'Europe/Moscow',
      channels: {
        in_app: settings?.in_app ?? true,
        telegram: settings?.telegram ?? true,
        push: settings?.push ?? true,
        email: settings?.email ?? true,
      },
      quietHours: settings?.quiet_start && settings.quiet_end ? { start: settings.quiet_start, end: settings.quiet_end } : null,
      pushDevices: push?.n ?? 0,
      email: email ?? null,
    };
  }
}
