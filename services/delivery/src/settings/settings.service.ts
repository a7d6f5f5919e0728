import { randomBytes } from 'node:crypto';
import { type DeliveryChannel, type NotificationSettings, type NotificationSettingsReply, putNotificationSettingsSchema } from '@invest/contracts';
import type { Db, SqlClient } from '@invest/platform/db/database';
import { parseOrThrow } from '@invest/platform/rpc/service-error';
import { readSettings, writeSettings } from './settings.repository.js';

/**
 * `GET`/`PUT /api/notification-settings`: a user's channels, quiet hours, time zone and language, with what the
 * channels know of them (a linked chat, a confirmed address, push devices) and the last permanent failure per
 * channel. Only ever the signed-in user's: the user comes from the RPC meta, never from the body.
 */
export class SettingsService {
  constructor(private readonly o: { db: Db; clock: () => Date }) {}

  async get(userId: string): Promise<NotificationSettingsReply> {
    return { data: await settingsView(this.o.db, userId) };
  }

  async put(userId: string, input: unknown): Promise<NotificationSettingsReply> {
    const req = parseOrThrow(putNotificationSettingsSchema, input);
    const now = this.o.clock();
    return this.o.db.transaction(async (tx) => {
      await writeSettings(
        tx,
        userId,
        {
          ...(req.channels ? { channels: req.channels } : {}),
          ...(req.quiet_hours !== undefined ? { quietHours: req.quiet_hours } : {}),
          ...(req.time_zone !== undefined ? { timeZone: req.time_zone } : {}),
          ...(req.language !== undefined ? { language: req.language } : {}),
        },
        now,
      );
      if (req.email === null) await tx.query('delete from email_addresses where user_id = $1', [userId]);
      else if (req.email !== undefined) await setEmailAddress(tx, userId, req.email, now);
      return { data: await settingsView(tx, userId) };
    });
  }
}

/**
 * A saved unconfirmed address whose confirmation mail went out longer ago than this gets a new one: its link may
 * have expired or the mail been lost. Not sooner: the settings screen saves the address with every other field.
 */
export const CONFIRMATION_RESEND_AFTER_MS = 10 * 60_000;

/**
 * A new address is unconfirmed (the e-mail channel's job sends it a confirmation link) and gets a new unsubscribe
 * token; the same address again (in any case) keeps its confirmation, unless the mail server refused it
 * (`bounced_at`): entered again, it is confirmed again. The same address still unconfirmed, its confirmation mail
 * sent more than CONFIRMATION_RESEND_AFTER_MS ago, is owed a new one (its old link stops working; the unsubscribe
 * token stays).
 */
async function setEmailAddress(tx: SqlClient, userId: string, address: string, now: Date): Promise<void> {
  await tx.query(
    `insert into email_addresses as e (user_id, address, unsubscribe_token, updated_at) values ($1, $2, $3, $4)
     on conflict (user_id) do update set address = excluded.address,
       unsubscribe_token = case when lower(e.address) <> lower(excluded.address) or e.bounced_at is not null then excluded.unsubscribe_token else e.unsubscribe_token end,
       confirm_token_hash = null, confirm_sent_at = null, confirmed_at = null, updated_at = excluded.updated_at
     where lower(e.address) <> lower(excluded.address) or e.bounced_at is not null
       or (e.confirmed_at is null and e.confirm_sent_at < excluded.updated_at - $5 * interval '1 millisecond')`,
    [userId, address, randomBytes(24).toString('base64url'), now, CONFIRMATION_RESEND_AFTER_MS],
  );
}

/** The settings screen of one user: their settings (defaults without a row) and the state of each channel. */
export async function settingsView(db: SqlClient, userId: string): Promise<NotificationSettings> {
  // One after another: `db` may be a transaction, one connection.
  const settings = await readSettings(db, userId);
  const [chat] = await db.query<{ chat_id: string | null; blocked: boolean; muted_until: Date | null }>('select chat_id, blocked, muted_until from telegram_chats where user_id = $1', [userId]);
  const [email] = await db.query<{ address: string; confirmed_at: Date | null }>('select address, confirmed_at from email_addresses where user_id = $1', [userId]);
  const [push] = await db.query<{ devices: number }>('select count(*)::int as devices from push_subscriptions where user_id = $1', [userId]);
  const failures = await db.query<{ channel: DeliveryChannel; at: Date; reason: string }>('select channel, at, reason from delivery_failures where user_id = $1 order by at desc, channel', [userId]);
  return {
    channels: settings.channels,
    quiet_hours: settings.quietHours,
    time_zone: settings.timeZone,
    language: settings.language,
    telegram: {
      linked: chat !== undefined && chat.chat_id !== null,
      blocked: chat?.blocked ?? false,
      muted_until: chat?.muted_until ? new Date(chat.muted_until).toISOString() : null,
    },
    email: { address: email?.address ?? null, confirmed: email?.confirmed_at != null },
    push: { devices: push?.devices ?? 0 },
    last_failures: failures.map((f) => ({ channel: f.channel, at: new Date(f.at).toISOString(), reason: f.reason })),
  };
}
