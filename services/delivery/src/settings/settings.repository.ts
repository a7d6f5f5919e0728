import type { DeliveryChannel, DeliveryLanguage } from '@invest/contracts';
import type { SqlClient } from '@invest/platform';
import type { QuietHours } from './quiet-hours.js';

/** A user's delivery settings; a user without a row has the defaults (every channel on, no quiet hours). */
export interface UserSettings {
  channels: Record<DeliveryChannel, boolean>;
  quietHours: QuietHours | null;
  timeZone: string;
  language: DeliveryLanguage;
}

/** The table's defaults (migration 0001), for a user who never saved settings. */
export const DEFAULT_SETTINGS: UserSettings = {
  channels: { in_app: true, telegram: true, push: true, email: true },
  quietHours: null,
  timeZone: 'Europe/Moscow',
  language: 'ru',
};

interface SettingsRow {
  in_app: boolean;
  telegram: boolean;
  push: boolean;
  email: boolean;
  quiet_start: string | null;
  quiet_end: string | null;
  time_zone: string;
  language: DeliveryLanguage;
}

export async function readSettings(db: SqlClient, userId: string): Promise<UserSettings> {
  return (await readSettingsOf(db, [userId])).get(userId)!;
}

/** Several users' settings at once (a user without a row has the defaults). */
export async function readSettingsOf(db: SqlClient, userIds: readonly string[]): Promise<Map<string, UserSettings>> {
  const rows = await db.query<SettingsRow & { user_id: string }>(
    'select user_id, in_app, telegram, push, email, quiet_start, quiet_end, time_zone, language from settings where user_id = any($1::text[])',
    [userIds],
  );
  const found = new Map(rows.map((row) => [row.user_id, settingsOf(row)]));
  return new Map(userIds.map((id) => [id, found.get(id) ?? DEFAULT_SETTINGS]));
}

function settingsOf(row: SettingsRow): UserSettings {
  return {
    channels: { in_app: row.in_app, telegram: row.telegram, push: row.push, email: row.email },
    quietHours: row.quiet_start && row.quiet_end ? { start: row.quiet_start, end: row.quiet_end } : null,
    timeZone: row.time_zone,
    language: row.language,
  };
}

/** What a PUT changes: an absent field stays; `quietHours: null` removes them. */
export interface SettingsChange {
  channels?: Partial<Record<DeliveryChannel, boolean>>;
  quietHours?: QuietHours | null;
  timeZone?: string;
  language?: DeliveryLanguage;
}

/** Writes the given fields of a user's settings (the row is created with the defaults for the rest). */
export async function writeSettings(db: SqlClient, userId: string, change: SettingsChange, now: Date): Promise<void> {
  const c = change.channels ?? {};
  const quietGiven = change.quietHours !== undefined;
  await db.query(
    `insert into settings as s (user_id, in_app, telegram, push, email, quiet_start, quiet_end, time_zone, language, updated_at)
     values ($1, coalesce($2, true), coalesce($3, true), coalesce($4, true), coalesce($5, true), $7, $8, coalesce($9, 'Europe/Moscow'), coalesce($10, 'ru'), $11)
     on conflict (user_id) do update set
       in_app = coalesce($2, s.in_app), telegram = coalesce($3, s.telegram), push = coalesce($4, s.push), email = coalesce($5, s.email),
       quiet_start = case when $6 then $7 else s.quiet_start end, quiet_end = case when $6 then $8 else s.quiet_end end,
       time_zone = coalesce($9, s.time_zone), language = coalesce($10, s.language), updated_at = $11`,
    [
      userId,
      c.in_app ?? null,
      c.telegram ?? null,
      c.push ?? null,
      c.email ?? null,
      quietGiven,
      change.quietHours?.start ?? null,
      change.quietHours?.end ?? null,
      change.timeZone ?? null,
      change.language ?? null,
      now,
    ],
  );
}
