import { useEffect } from 'react';
import { followEventStream } from '../api/event-stream';
import { type Firing, publishFiring } from './inbox-events';
import { showToast } from './toast';

/** While signed in: the live SSE stream of fired notifications; each one shows a toast and reaches the inbox. */
export default function NotificationStream() {
  useEffect(() => {
    const abort = new AbortController();
    void followEventStream(
      '/api/notification-events/stream',
      (e) => {
        if (e.event !== 'notification') return;
        try {
          const firing = JSON.parse(e.data) as Firing;
          showToast(firing.body, 'info', firing.title);
          publishFiring(firing);
        } catch {
          /* a malformed event is skipped; the inbox still lists it */
        }
      },
      abort.signal,
      (connected) => document.documentElement.setAttribute('data-notification-stream', connected ? 'connected' : 'disconnected'),
    );
    return () => abort.abort();
  }, []);
  return null;
}
