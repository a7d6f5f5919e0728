import type { CrossedAsset, FiringExplanation, FiringType, Locale, NotificationEventView } from './alerts.contract.js';
import type { NotificationFiredV1 } from './alerts-events.js';

/** A firing as its inbox row holds it (and NotificationFired carries it): every locale's texts, read or not. */
export interface StoredFiring {
  id: number;
  /** Null for an account notice. */
  notificationId: number | null;
  type: FiringType;
  texts: Record<string, { title: string; body: string }>;
  path: string;
  assets: CrossedAsset[];
  explanation: FiringExplanation | null;
  readAt: Date | string | null;
  firedAt: Date | string;
}

/**
 * What a reader is shown of a firing, in `locale` (ru when the firing has no text in it): the inbox's row and the
 * SSE stream's `data`. The one mapping both use, so a firing pushed live reads exactly as the inbox lists it.
 */
export function notificationEventView(f: StoredFiring, locale: Locale): NotificationEventView {
  const text = f.texts[locale] ?? f.texts.ru ?? { title: '', body: '' };
  return {
    id: f.id,
    notification_id: f.notificationId,
    type: f.type,
    title: text.title,
    body: text.body,
    path: f.path,
    assets: f.assets,
    explanation: f.explanation,
    read_at: f.readAt === null ? null : new Date(f.readAt).toISOString(),
    fired_at: new Date(f.firedAt).toISOString(),
  };
}

/** A NotificationFired as its inbox row reads: a firing is unread when it fires. */
export function notificationFiredView(e: NotificationFiredV1, locale: Locale): NotificationEventView {
  return notificationEventView({ ...e, id: e.firingId, readAt: null }, locale);
}
