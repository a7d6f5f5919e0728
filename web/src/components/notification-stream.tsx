import { useEffect } from 'react';
import { followEventStream } from '../api/event-stream';
import { getLocale } from '../i18n';
import { createMoveToaster } from './firing-toasts';
import { inAppToastsOn, refreshInAppToasts, resetInAppToasts } from './in-app-toasts';
import { type Firing, publishFiring } from './inbox-events';
import { showToast, updateToast } from './toast';
import { refreshUnreadCount, refreshUnreadCountSoon, resetUnreadCount } from './unread-count';

/**
 * While signed in: the live SSE stream of fired notifications. Each one reaches the inbox and the unread count;
 * the firings of one move (one rate batch, or within 3 s) share one toast, unless the user switched the in-app
 * channel off (in-app-toasts.ts).
 */
export default function NotificationStream() {
  useEffect(() => {
    const abort = new AbortController();
    const toast = createMoveToaster({
      show: (t) => showToast(t.text, 'info', t.title, t.items),
      update: (id, t) => updateToast(id, t),
      locale: getLocale,
    });
    void followEventStream(
      '/api/notification-events/stream',
      (e) => {
        if (e.event !== 'notification') return;
        let firing: Firing;
        try {
          firing = JSON.parse(e.data) as Firing;
        } catch {
          return; // a malformed event is skipped; the inbox still lists it
        }
        publishFiring(firing);
        refreshUnreadCountSoon();
        if (!inAppToastsOn()) return;
        try {
          toast(firing);
        } catch {
          /* a firing the toast cannot read is still in the inbox and the count */
        }
      },
      abort.signal,
      (connected) => {
        document.documentElement.setAttribute('data-notification-stream', connected ? 'connected' : 'disconnected');
        // Connected (again): whatever happened meanwhile is in the server's count; the setting may have changed elsewhere.
        if (connected) {
          void refreshUnreadCount();
          void refreshInAppToasts();
        }
      },
    );
    return () => {
      abort.abort();
      resetUnreadCount();
      resetInAppToasts();
    };
  }, []);
  return null;
}
