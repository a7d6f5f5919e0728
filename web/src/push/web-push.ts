import { api } from '../api/client';
import { ApiError } from '../api/api-error';
import type { Locale } from '../format/number-format';

/**
 * Web push in this browser (issue 32): the service worker `/sw.js` shows what the delivery service sends; these
 * functions subscribe the browser (with the server's VAPID key) and store or remove its subscription through
 * `/api/push-subscriptions`. The settings screen calls them; nothing here renders anything.
 */

/** Why this browser gets no web push. */
export type PushProblem =
  /** No service workers, Push API or notifications (an old browser, a private window, plain http on another host). */
  | 'unsupported'
  /** The user blocked notifications for this site; only the browser's site settings can undo it. */
  | 'denied'
  /** The permission prompt was closed without an answer. */
  | 'dismissed'
  /** The server has no VAPID keys (503 from /api/push-subscriptions/key). */
  | 'server-off'
  /** The browser's push service or the API failed; trying again may work. */
  | 'failed';

export class PushError extends Error {
  constructor(
    readonly problem: PushProblem,
    message: string,
  ) {
    super(message);
    this.name = 'PushError';
  }
}

/** What the settings screen shows for each problem: `[ru, en]`. */
export const PUSH_PROBLEM_TEXTS: Record<PushProblem, readonly [string, string]> = {
  unsupported: ['Этот браузер не поддерживает push-уведомления.', 'This browser does not support push notifications.'],
  denied: ['Уведомления для сайта запрещены в настройках браузера.', 'Notifications for this site are blocked in the browser settings.'],
  dismissed: ['Браузер не получил разрешения на уведомления.', 'The browser was not allowed to show notifications.'],
  'server-off': ['Push-уведомления не настроены на сервере.', 'Push notifications are not configured on the server.'],
  failed: ['Не удалось включить push-уведомления. Попробуйте ещё раз.', 'Could not turn push notifications on. Try again.'],
};

export function pushProblemText(problem: PushProblem, locale: Locale): string {
  const [ru, en] = PUSH_PROBLEM_TEXTS[problem];
  return locale === 'ru' ? ru : en;
}

const WORKER_URL = '/sw.js';

/** Whether this browser can do web push at all (a secure context with service workers, PushManager and notifications). */
export function pushSupported(): boolean {
  return typeof window !== 'undefined' && window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** Whether this browser is subscribed now (its subscription may still have to be stored: `subscribeToPush` does both). */
export async function pushSubscribed(): Promise<boolean> {
  if (!pushSupported()) return false;
  const registration = await navigator.serviceWorker.getRegistration('/');
  return (await registration?.pushManager.getSubscription()) != null;
}

/**
 * Turns web push on in this browser: registers the worker, asks for permission, subscribes with the server's key and
 * stores the subscription for the signed-in user. Calling it again is harmless (the same subscription is stored once).
 * A subscription the server says belongs to another user (this browser was theirs before) is replaced by a new one.
 * Throws a PushError.
 */
export async function subscribeToPush(): Promise<void> {
  if (!pushSupported()) throw new PushError('unsupported', 'Push is not supported here.');
  const permission = await Notification.requestPermission();
  if (permission === 'denied') throw new PushError('denied', 'Notifications are blocked.');
  if (permission !== 'granted') throw new PushError('dismissed', 'Notifications were not allowed.');
  try {
    const registration = await navigator.serviceWorker.register(WORKER_URL, { scope: '/' });
    await navigator.serviceWorker.ready;
    const key = await serverKey();
    let subscription = await registration.pushManager.getSubscription();
    // Made with another key (the server's keys were replaced): the push service would refuse our messages.
    if (subscription && !sameKey(subscription.options.applicationServerKey, key)) {
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    try {
      await store(subscription);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
      // The endpoint is another user's: drop it and store a fresh one, which is this user's alone.
      await subscription.unsubscribe();
      await store(await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
    }
  } catch (err) {
    if (err instanceof PushError) throw err;
    throw new PushError('failed', (err as Error).message);
  }
}

/**
 * Turns web push off in this browser: the server forgets the subscription, and the browser drops it (even when the
 * server could not be told: the push service then answers 410 and the server deletes it on the next message).
 */
export async function unsubscribeFromPush(): Promise<void> {
  if (!pushSupported()) return;
  const registration = await navigator.serviceWorker.getRegistration('/');
  const subscription = await registration?.pushManager.getSubscription();
  if (!subscription) return;
  try {
    await api.delete('/api/push-subscriptions', { body: { endpoint: subscription.endpoint } });
  } finally {
    await subscription.unsubscribe();
  }
}

async function serverKey(): Promise<Uint8Array<ArrayBuffer>> {
  try {
    const { data } = await api.get('/api/push-subscriptions/key');
    return base64urlBytes(data.public_key);
  } catch (err) {
    if (err instanceof ApiError && err.status === 503) throw new PushError('server-off', err.message);
    throw err;
  }
}

async function store(subscription: PushSubscription): Promise<void> {
  const json = subscription.toJSON();
  await api.post('/api/push-subscriptions', {
    body: { endpoint: subscription.endpoint, expirationTime: json.expirationTime ?? null, keys: { p256dh: json.keys?.p256dh ?? '', auth: json.keys?.auth ?? '' } },
  });
}

/** base64url (the key as the API gives it) → bytes, as `applicationServerKey` takes them. */
export function base64urlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(text.length / 4) * 4, '=');
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

function sameKey(current: ArrayBuffer | null, key: Uint8Array): boolean {
  if (!current || current.byteLength !== key.length) return false;
  const a = new Uint8Array(current);
  return a.every((b, i) => b === key[i]);
}
