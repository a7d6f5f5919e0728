import {
  type CrossedAsset,
  type FiringExplanation,
  listNotificationEventsRequestSchema,
  type Locale,
  markReadRequestSchema,
  notificationEventView,
  type NotificationEventView,
  type FiringType,
  type Page,
  pageMeta,
} from '@invest/contracts';
import type { Db } from '@invest/platform/db/database';
import { parseOrThrow } from '@invest/platform/rpc/service-error';

interface FiringRow {
  id: string;
  notification_id: string | null;
  type: FiringType;
  texts: Record<string, { title: string; body: string }>;
  path: string;
  assets: CrossedAsset[];
  explanation: FiringExplanation | null;
  read_at: Date | null;
  fired_at: Date;
}

export type NotificationEventsPage = Page<NotificationEventView> & { meta: Page<NotificationEventView>['meta'] & { unread_count: number; last_id: number } };

/** The user's fired notifications (the inbox), rendered in the requested locale. */
export class NotificationEventsService {
  constructor(private readonly db: Db, private readonly clock: () => Date) {}

  /**
   * Newest first, paged, with the unread count. (`order by` names the table's id: a bare `id` would be the
   * selected `id::text`, and "9" sorts after "12".) With `after_id` (the SSE replay): the firings after that
   * id, oldest first, at most `per_page`.
   */
  async list(userId: string, input: unknown): Promise<NotificationEventsPage> {
    const q = parseOrThrow(listNotificationEventsRequestSchema, input);
    const unreadOnly = q.unread === true ? ' and read_at is null' : '';
    const [counts] = await this.db.query<{ total: string; unread: string; last_id: string }>(
      `select count(*) filter (where ${q.unread === true ? 'read_at is null' : 'true'})::text as total,
              count(*) filter (where read_at is null)::text as unread, coalesce(max(id), 0)::text as last_id
       from notification_firings where user_id = $1`,
      [userId],
    );
    const rows =
      q.after_id !== undefined
        ? await this.db.query<FiringRow>(
            `select id::text, notification_id::text, type, texts, path, assets, explanation, read_at, fired_at from notification_firings
             where user_id = $1 and id > $2${unreadOnly} order by notification_firings.id limit $3`,
            [userId, q.after_id, q.per_page],
          )
        : await this.db.query<FiringRow>(
            `select id::text, notification_id::text, type, texts, path, assets, explanation, read_at, fired_at from notification_firings
             where user_id = $1${unreadOnly} order by notification_firings.id desc limit $2 offset $3`,
            [userId, q.per_page, (q.page - 1) * q.per_page],
          );
    const total = Number(counts?.total ?? 0);
    return {
      data: rows.map((r) => toView(r, q.locale)),
      meta: { ...pageMeta(q, total, rows.length), unread_count: Number(counts?.unread ?? 0), last_id: Number(counts?.last_id ?? 0) },
    };
  }

  async markRead(userId: string, input: unknown): Promise<{ data: { marked: number; unread_count: number } }> {
    const req = parseOrThrow(markReadRequestSchema, input);
    const rows = req.all
      ? await this.db.query('update notification_firings set read_at = $2 where user_id = $1 and read_at is null returning id', [userId, this.clock()])
      : await this.db.query('update notification_firings set read_at = $2 where user_id = $1 and read_at is null and id = any($3::bigint[]) returning id', [userId, this.clock(), req.ids]);
    const [{ unread } = { unread: '0' }] = await this.db.query<{ unread: string }>('select count(*)::text as unread from notification_firings where user_id = $1 and read_at is null', [userId]);
    return { data: { marked: rows.length, unread_count: Number(unread) } };
  }
}

function toView(r: FiringRow, locale: Locale): NotificationEventView {
  return notificationEventView(
    { id: Number(r.id), notificationId: r.notification_id === null ? null : Number(r.notification_id), type: r.type, texts: r.texts, path: r.path, assets: r.assets, explanation: r.explanation, readAt: r.read_at, firedAt: r.fired_at },
    locale,
  );
}
